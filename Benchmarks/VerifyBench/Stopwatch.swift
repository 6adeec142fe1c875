import Glibc

/// One time-bounded measurement: run an operation for about `seconds`, count how many completed.
struct Measurement {
    var name: String
    var operations: Int
    var seconds: Double

    var perSecond: Double { Double(operations) / seconds }
    var microsecondsPerOperation: Double { seconds * 1_000_000 / Double(operations) }
}

enum Stopwatch {
    /// Monotonic seconds.
    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// Calls `operation(i)` for i = 0, 1, … for a short warm-up, then for `seconds`, checking the clock every few
    /// calls so that reading it costs nothing measurable beside a signature verification.
    static func measure(_ name: String, seconds: Double, _ operation: (Int) -> Void) -> Measurement {
        let warmUpEnd = now() + min(0.25, seconds / 10)
        var index = 0
        while now() < warmUpEnd {
            operation(index)
            index += 1
        }
        let start = now()
        let end = start + seconds
        var count = 0
        var finished = start
        while finished < end {
            for _ in 0..<8 {
                operation(index)
                index += 1
            }
            count += 8
            finished = now()
        }
        return Measurement(name: name, operations: count, seconds: finished - start)
    }
}
