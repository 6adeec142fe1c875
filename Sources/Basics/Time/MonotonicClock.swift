import Glibc

/// The kernel's CLOCK_MONOTONIC, read directly: never jumps, meaningless across reboots and between machines. For
/// the event loops, timeouts and measurements that are never pinned by a test; everything else reads time through
/// a ``TimeSource``.
public enum MonotonicClock {
    /// Nanoseconds since an arbitrary fixed point.
    public static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }
}
