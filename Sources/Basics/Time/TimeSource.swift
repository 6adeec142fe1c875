import Glibc

/// Where a module reads the time: wall time for what is compared with other machines and stored (token and
/// challenge expiry, receipts, certificates, logs), monotonic time for what is measured in this process. A value,
/// so that a test can pin it or move it; ``system`` reads the kernel's clocks.
public struct TimeSource: Sendable {
    private let wall: @Sendable () -> Int64
    private let monotonic: @Sendable () -> UInt64

    /// A source reading `unixNanoseconds` for wall time and `monotonicNanoseconds` for monotonic time.
    public init(unixNanoseconds: @escaping @Sendable () -> Int64,
                monotonicNanoseconds: @escaping @Sendable () -> UInt64 = MonotonicClock.nanoseconds) {
        wall = unixNanoseconds
        monotonic = monotonicNanoseconds
    }

    /// A source whose wall time is `unixSeconds()` whole seconds (tests that count in seconds); monotonic time is
    /// the system's.
    public init(unixSeconds: @escaping @Sendable () -> Int64) {
        self.init(unixNanoseconds: { unixSeconds() &* 1_000_000_000 })
    }

    /// The kernel's CLOCK_REALTIME and CLOCK_MONOTONIC.
    public static let system = TimeSource(unixNanoseconds: {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) &* 1_000_000_000 &+ Int64(now.tv_nsec)
    })

    /// A source whose wall time stands still at `unixSeconds`.
    public static func fixed(unixSeconds: Int64) -> TimeSource {
        TimeSource(unixSeconds: { unixSeconds })
    }

    /// Nanoseconds since 1970-01-01T00:00:00Z.
    public func unixNanoseconds() -> Int64 { wall() }

    /// Whole seconds since 1970-01-01T00:00:00Z, the unit of every expiry the service stores and signs.
    public func unixSeconds() -> Int64 { CivilDate.floorDivide(wall(), 1_000_000_000) }

    /// Whole milliseconds since 1970-01-01T00:00:00Z, the unit of Apple's DeviceCheck timestamps and receipt times.
    public func unixMilliseconds() -> Int64 { CivilDate.floorDivide(wall(), 1_000_000) }

    /// Nanoseconds on a clock that never jumps, from an arbitrary fixed point (``MonotonicClock`` for ``system``).
    public func monotonicNanoseconds() -> UInt64 { monotonic() }
}
