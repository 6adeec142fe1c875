import Glibc

/// Wall-clock time for the simulator's defaults; every public entry point also takes an explicit time.
enum SimulatedClock {
    /// Seconds since the Unix epoch, now.
    static var now: Int64 { nowMilliseconds / 1000 }

    /// Milliseconds since the Unix epoch, now (receipt creation times carry milliseconds).
    static var nowMilliseconds: Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    static let day: Int64 = 86_400
}
