import Glibc

/// CLOCK_MONOTONIC, the clock of ``HTTPRequest/receivedAtNanos``: never jumps, meaningless across reboots.
public enum MonotonicClock {
    /// Nanoseconds since an arbitrary fixed point.
    public static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }
}
