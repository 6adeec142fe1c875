import Synchronization

/// Requests by method and status code, and their latency as a histogram per method:
/// `attestd_requests_total{method,code}` and `attestd_request_duration_seconds{method}`.
///
/// The methods are known up front, so each has its own lock: requests to different methods never contend, and
/// recording one request is one uncontended lock and a few additions. Every method's histogram, and its count for
/// each of `knownCodes`, is exported at zero from the start.
public final class RequestMetrics: Sendable, MetricFamily {
    /// Latency bucket bounds in seconds: fine below a millisecond, where attestd's answers live.
    public static let defaultBuckets: [Double] = [
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
    ]
    /// Requests whose method is not one of those registered are counted under this name.
    public static let otherMethod = "other"

    private let buckets: [Double]
    private let slots: [String: MethodSlot]
    private let order: [String]

    /// - Parameter knownCodes: status codes counted at zero for every method before any request ends with them.
    public init(methods: [String], knownCodes: [String] = [], buckets: [Double] = RequestMetrics.defaultBuckets) {
        self.buckets = buckets
        let names = methods + [Self.otherMethod]
        self.order = names
        self.slots = Dictionary(
            names.map { ($0, MethodSlot(bucketCount: buckets.count, knownCodes: knownCodes)) }, uniquingKeysWith: { a, _ in a })
    }

    /// Records one finished request.
    public func record(method: String, code: String, seconds: Double) {
        let slot = slots[method] ?? slots[Self.otherMethod]!
        let bucket = buckets.firstIndex(where: { seconds <= $0 }) ?? buckets.count
        slot.stats.withLock { stats in
            stats.codes[code, default: 0] += 1
            stats.bucketCounts[bucket] += 1
            stats.sum += seconds
        }
    }

    /// How many requests to `method` ended with `code`.
    public func count(method: String, code: String) -> Int {
        (slots[method] ?? slots[Self.otherMethod]!).stats.withLock { $0.codes[code] ?? 0 }
    }

    public func render(into output: inout String) {
        output += "# HELP attestd_requests_total Requests answered, by RPC method and gRPC status code.\n"
        output += "# TYPE attestd_requests_total counter\n"
        let snapshots = order.map { ($0, slots[$0]!.stats.withLock { $0 }) }
        for (method, stats) in snapshots {
            for (code, count) in stats.codes.sorted(by: { $0.key < $1.key }) {
                output += "attestd_requests_total"
                PrometheusText.appendLabels([("method", method), ("code", code)], to: &output)
                output += " \(count)\n"
            }
        }
        output += "# HELP attestd_request_duration_seconds Time from a request's last byte to its answer.\n"
        output += "# TYPE attestd_request_duration_seconds histogram\n"
        for (method, stats) in snapshots {
            PrometheusText.appendHistogram(
                name: "attestd_request_duration_seconds", labels: [("method", method)], bounds: buckets,
                bucketCounts: stats.bucketCounts, sum: stats.sum, to: &output)
        }
    }
}

private final class MethodSlot: Sendable {
    struct Stats {
        var codes: [String: Int] = [:]
        var bucketCounts: [Int]
        var sum: Double = 0
    }

    let stats: Mutex<Stats>

    init(bucketCount: Int, knownCodes: [String]) {
        stats = Mutex(Stats(
            codes: Dictionary(knownCodes.map { ($0, 0) }, uniquingKeysWith: { a, _ in a }),
            bucketCounts: Array(repeating: 0, count: bucketCount + 1)))
    }
}
