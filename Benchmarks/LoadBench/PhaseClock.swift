/// The times of one phase on the monotonic clock: warm-up from `start`, then the measured window to `end`.
struct PhaseClock: Sendable {
    var start: UInt64
    var warmupEnd: UInt64
    var end: UInt64
    /// How long after `end` unanswered requests are waited for before they count as timed out.
    var drain: UInt64
}
