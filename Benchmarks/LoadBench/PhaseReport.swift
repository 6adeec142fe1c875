/// One phase as reported: how it was run, what it measured, and its bound.
struct PhaseReport: Sendable {
    var name: String
    var kinds: [RequestKind]
    var pacing: String
    /// Open loop: the arrival rate asked for (requests/s).
    var targetRate: Double?
    var connections: Int
    var streams: Int
    var result: PhaseResult
    /// Requests per second if only crypto cost anything (nil for challenges alone).
    var bound: Double?

    var throughput: Double { result.measuredSeconds > 0 ? Double(result.ok) / result.measuredSeconds : 0 }
    var ratio: Double? { bound.map { throughput / $0 } }
}
