import Glibc

/// CLOCK_MONOTONIC in nanoseconds: how long writes have been held back or queued.
enum MonotonicNanoseconds {
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
