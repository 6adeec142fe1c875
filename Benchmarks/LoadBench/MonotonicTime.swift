import Glibc

/// CLOCK_MONOTONIC in nanoseconds: every time the bench records (schedules, sends, completions) is on this clock.
enum MonotonicTime {
    static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    static func seconds(_ nanoseconds: UInt64) -> Double { Double(nanoseconds) / 1e9 }
    static func nanoseconds(seconds: Double) -> UInt64 { UInt64(max(0, seconds) * 1e9) }
}
