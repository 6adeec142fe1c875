import Glibc

/// What the bench knows about its own threads: which ones submit (so a completion can tell whether it runs on a
/// submitting thread, i.e. whether a submitter was made to wait for Redis), and their clocks.
enum SubmitterThread {
    /// Set (to any non-nil value) on the bench's submitting threads.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
        return key
    }()

    /// Marks the calling thread as a submitter, for the rest of its life.
    static func markCurrent() {
        _ = pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
    }

    /// Whether the calling thread is a submitter.
    static var isCurrent: Bool { pthread_getspecific(key) != nil }

    /// Burns `microseconds` of this thread's CPU time: a signature check's worth of work, however long the thread
    /// is preempted meanwhile.
    static func spin(microseconds: Int) {
        guard microseconds > 0 else { return }
        let end = nanoseconds(CLOCK_THREAD_CPUTIME_ID) + UInt64(microseconds) * 1_000
        while nanoseconds(CLOCK_THREAD_CPUTIME_ID) < end {}
    }

    private static func nanoseconds(_ clock: clockid_t) -> UInt64 {
        var time = timespec()
        clock_gettime(clock, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
