import Glibc

/// The wall clock in unix seconds, the unit every expiry in `StateStore` uses.
enum UnixClock {
    @Sendable static func now() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec)
    }
}
