/// The loop of a store's background thread (the SQLite sweeper, the checkpointer): a round every interval until
/// stopped. Stopping wakes the thread at once, so closing a store never waits out an interval.
final class PeriodicLoop: Sendable {
    private let wake = ConditionLock()
    // Guarded by `wake`.
    nonisolated(unsafe) private var stopping = false

    /// Runs `round` every `interval` seconds on the calling thread, the first after one interval, until `stop()`.
    func run(every interval: Double, _ round: () -> Void) {
        while true {
            let stopped = wake.withLock {
                if !stopping { wake.wait(seconds: interval) }
                return stopping
            }
            if stopped { return }
            round()
        }
    }

    func stop() {
        wake.withLock {
            stopping = true
            wake.signal()
        }
    }
}
