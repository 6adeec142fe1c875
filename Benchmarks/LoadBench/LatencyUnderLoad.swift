/// One exchange's latency against load: its open-loop phases, each at a fraction of the saturating rate, beside the
/// one-at-a-time service time. The line it is read against is p99 ≤ 3 × the service time; the
/// sweep says up to which load a node holds that, which is what an operator sizing a fleet needs.
struct LatencyUnderLoad: Sendable {
    /// The target: p99 at most this many service times.
    static let allowedMultiple = 3.0

    struct Point: Sendable, Equatable {
        /// Arrivals as a fraction of the closed-loop (saturating) rate.
        var fraction: Double
        var arrivalsPerSecond: Double
        var p50Seconds: Double
        var p99Seconds: Double
        /// Cores the whole machine kept busy meanwhile, when measured (the latency floor's points).
        var coresBusy: Double? = nil
    }

    /// The one-at-a-time p50.
    var serviceSeconds: Double
    /// Sorted by fraction, lowest first.
    private(set) var points: [Point]

    init(serviceSeconds: Double, points: [Point]) {
        self.serviceSeconds = serviceSeconds
        self.points = points.sorted { $0.fraction < $1.fraction }
    }

    func multiple(_ point: Point) -> Double { point.p99Seconds / serviceSeconds }

    /// The point measured at `fraction` of the saturating rate, if any: where another sweep of the same loads (the
    /// latency floor's) is read beside this one.
    func point(at fraction: Double) -> Point? { points.first { $0.fraction == fraction } }
    func meets(_ point: Point) -> Bool { multiple(point) <= Self.allowedMultiple }

    /// The highest load at which the target holds, counting only loads below the first that misses it: a lucky run
    /// at 50 % after a miss at 25 % says nothing about 50 % holding.
    var highestMeeting: Point? {
        var highest: Point?
        for point in points {
            guard meets(point) else { break }
            highest = point
        }
        return highest
    }

    /// The lowest load at which the target was missed.
    var lowestMissing: Point? { points.first { !meets($0) } }
}
