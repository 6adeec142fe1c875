/// What a phase measured, per kind of request: successes with their latency, every other answer by status, and the
/// replays with how they were answered. Workers each fill one; the runner merges them.
struct PhaseResult: Sendable {
    struct KindResult: Sendable {
        var ok = 0
        var errors: [String: Int] = [:]
        /// One message per error status, so a report can say what the server answered.
        var errorSamples: [String: String] = [:]
        var latency = LatencyHistogram()
        var replaysSent = 0
        var replaysRefused = 0
        /// Replays answered with anything but PERMISSION_DENIED, by status (OK here is a correctness bug).
        var replayOther: [String: Int] = [:]

        var errorCount: Int { errors.values.reduce(0, +) }

        mutating func merge(_ other: KindResult) {
            ok += other.ok
            errors.merge(other.errors, uniquingKeysWith: +)
            errorSamples.merge(other.errorSamples) { first, _ in first }
            latency.merge(other.latency)
            replaysSent += other.replaysSent
            replaysRefused += other.replaysRefused
            replayOther.merge(other.replayOther, uniquingKeysWith: +)
        }
    }

    static let binSeconds = 0.1

    var kinds = [KindResult](repeating: KindResult(), count: RequestKind.allCases.count)
    /// All kinds together.
    var latency = LatencyHistogram()
    /// Successful completions per 100 ms bin from the phase's start (warm-up included).
    var timeline: [Int] = []
    /// The slowest successful answer (nanoseconds; open loop: from its scheduled time) completed in each bin: a stall
    /// of the server shows here as a spike at the moment it happened, where the percentiles only say that it did.
    var timelineSlowest: [UInt64] = []
    /// The first bin after the warm-up.
    var firstMeasuredBin = 0
    /// The seconds the measured window really lasted (shorter than asked when precomputed requests ran out).
    var measuredSeconds = 0.0
    var exhausted = false
    /// Requests still unanswered when the drain timeout passed (counted as errors too).
    var timedOut = 0
    /// Open loop: arrivals scheduled in the window that never found a free stream before it ended.
    var notSent = 0
    /// Every connection closed and none could be made again before the phase ended.
    var serverLost = false

    var ok: Int { kinds.reduce(0) { $0 + $1.ok } }
    var errorCount: Int { kinds.reduce(0) { $0 + $1.errorCount } }

    mutating func merge(_ other: PhaseResult) {
        for index in kinds.indices { kinds[index].merge(other.kinds[index]) }
        latency.merge(other.latency)
        if timeline.count < other.timeline.count { timeline += Array(repeating: 0, count: other.timeline.count - timeline.count) }
        for (index, count) in other.timeline.enumerated() { timeline[index] += count }
        if timelineSlowest.count < other.timelineSlowest.count {
            timelineSlowest += Array(repeating: 0, count: other.timelineSlowest.count - timelineSlowest.count)
        }
        for (index, slowest) in other.timelineSlowest.enumerated() { timelineSlowest[index] = max(timelineSlowest[index], slowest) }
        firstMeasuredBin = max(firstMeasuredBin, other.firstMeasuredBin)
        measuredSeconds = max(measuredSeconds, other.measuredSeconds)
        exhausted = exhausted || other.exhausted
        timedOut += other.timedOut
        notSent += other.notSent
        serverLost = serverLost || other.serverLost
    }
}
