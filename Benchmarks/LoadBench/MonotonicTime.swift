import CShimsLinux
import Glibc

/// Conversions and timers for the bench's times, all nanoseconds of ``MonotonicClock`` (schedules, sends,
/// completions).
enum MonotonicTime {
    static func seconds(_ nanoseconds: UInt64) -> Double { Double(nanoseconds) / 1e9 }
    static func nanoseconds(seconds: Double) -> UInt64 { UInt64(max(0, seconds) * 1e9) }

    /// Arms a CLOCK_MONOTONIC timerfd to expire once at `deadline` (nanoseconds on ``MonotonicClock``).
    static func arm(timer: Int32, at deadline: UInt64) {
        var spec = itimerspec()
        spec.it_value.tv_sec = Int(deadline / 1_000_000_000)
        spec.it_value.tv_nsec = Int(deadline % 1_000_000_000)
        _ = timerfd_settime(timer, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }
}
