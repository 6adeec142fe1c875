import Foundation

/// The refresher's stop flag, its pause after a 429, and a sleep that a stop cuts short.
final class RefresherControl: @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var stopped = false
    private var paused: Int64?
    private var nextCall = ContinuousClock.now
    let finished = DispatchSemaphore(value: 0)

    /// When the next call to Apple may start; the one after it may start `spacing` later.
    func nextCallSlot(spacing: Duration) -> ContinuousClock.Instant {
        condition.withLock {
            let slot = max(nextCall, .now)
            nextCall = slot + spacing
            return slot
        }
    }

    var isStopped: Bool { condition.withLock { stopped } }
    var pausedUntil: Int64? { condition.withLock { paused } }

    func pause(until time: Int64) { condition.withLock { paused = time } }

    /// True the first time.
    func stop() -> Bool {
        condition.withLock {
            defer { stopped = true; condition.broadcast() }
            return !stopped
        }
    }

    func sleep(seconds: Double) {
        let until = Date(timeIntervalSinceNow: max(0, seconds))
        condition.withLock {
            while !stopped && Date() < until { _ = condition.wait(until: until) }
        }
    }
}
