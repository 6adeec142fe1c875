import Dispatch
import Synchronization

/// The loop of a store's background thread (the SQLite sweeper, the checkpointer): a round every interval until
/// stopped. Stopping wakes the thread at once, so closing a store never waits out an interval.
final class PeriodicLoop: Sendable {
    private let stopping = Atomic<Bool>(false)
    /// Signalled by `stop()`: the thread sleeps on it between rounds, so a stop cuts the sleep short. A semaphore,
    /// not a `Mutex`: a mutex cannot sleep until another thread acts, and the semaphore's count keeps a stop made
    /// before the thread went to sleep.
    private let stopSignal = DispatchSemaphore(value: 0)

    /// Runs `round` every `interval` seconds on the calling thread, the first after one interval, until `stop()`.
    func run(every interval: Double, _ round: () -> Void) {
        while !stopping.load(ordering: .acquiring) {
            let nanoseconds = Int(min(max(0, interval), 1e9) * 1e9)
            if stopSignal.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success { return }
            if stopping.load(ordering: .acquiring) { return }
            round()
        }
    }

    func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        stopSignal.signal()
    }
}
