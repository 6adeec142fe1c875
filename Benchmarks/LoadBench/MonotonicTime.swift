import CShimsLinux
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

    /// Arms a CLOCK_MONOTONIC timerfd to expire once at `deadline` (nanoseconds on this clock).
    static func arm(timer: Int32, at deadline: UInt64) {
        var spec = itimerspec()
        spec.it_value.tv_sec = Int(deadline / 1_000_000_000)
        spec.it_value.tv_nsec = Int(deadline % 1_000_000_000)
        _ = timerfd_settime(timer, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }
}
