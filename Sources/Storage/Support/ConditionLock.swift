import Glibc

/// A mutex with one condition variable, for the store's threads: a caller waiting for its write's batch sleeps on
/// it (`GroupCommitter.submitAndWait`), a background loop until its next round or shutdown (`PeriodicLoop`). Timed waits use the monotonic clock, so a wall-clock step
/// cannot stall or hurry them.
///
/// `@unchecked Sendable`: the pthread objects are made for sharing between threads; they live at fixed heap addresses.
final class ConditionLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits for a signal; call with the lock held (inside `withLock`).
    func wait() {
        pthread_cond_wait(condition, mutex)
    }

    /// Waits for a signal or until `seconds` have passed; call with the lock held.
    func wait(seconds: Double) {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let nanoseconds = Int(deadline.tv_nsec) + Int((seconds - seconds.rounded(.down)) * 1e9)
        deadline.tv_sec += Int(seconds) + nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        pthread_cond_timedwait(condition, mutex, &deadline)
    }

    func signal() { pthread_cond_signal(condition) }

    func broadcast() { pthread_cond_broadcast(condition) }
}
