import Dispatch
import Synchronization

/// The refresher's stop flag, its pause after a 429, and a sleep that a stop cuts short.
final class RefresherControl: Sendable {
    private struct State {
        var stopped = false
        var paused: Int64?
        var nextCall = ContinuousClock.now
    }

    private let state = Mutex(State())
    /// Given by the first `stop()`, and given back by a sleep that took it, so that every later sleep ends at once
    /// too. A semaphore, not a `Mutex`: a mutex cannot sleep until another thread acts.
    private let stopSignal = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)

    /// When the next call to Apple may start; the one after it may start `spacing` later.
    func nextCallSlot(spacing: Duration) -> ContinuousClock.Instant {
        state.withLock { state in
            let slot = max(state.nextCall, .now)
            state.nextCall = slot + spacing
            return slot
        }
    }

    var isStopped: Bool { state.withLock { $0.stopped } }
    var pausedUntil: Int64? { state.withLock { $0.paused } }

    func pause(until time: Int64) { state.withLock { $0.paused = time } }

    /// True the first time.
    func stop() -> Bool {
        let first = state.withLock { state in
            defer { state.stopped = true }
            return !state.stopped
        }
        if first { stopSignal.signal() }
        return first
    }

    /// Sleeps `seconds`, or until `stop()`.
    func sleep(seconds: Double) {
        guard !isStopped else { return }
        let nanoseconds = Int(min(max(0, seconds), 1e9) * 1e9)
        if stopSignal.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success { stopSignal.signal() }
    }
}
