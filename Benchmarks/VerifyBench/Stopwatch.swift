import Glibc

/// One measurement: how many operations completed in how much time.
struct Measurement {
    var name: String
    var operations: Int
    var seconds: Double

    var perSecond: Double { Double(operations) / seconds }
    var microsecondsPerOperation: Double { seconds * 1_000_000 / Double(operations) }
}

/// A named operation; `operation(i)` performs the i-th one.
struct Benchmark {
    var key: String
    var name: String
    var operation: (Int) -> Void
}

enum Stopwatch {
    /// CPU seconds consumed by this thread. Time spent preempted by other processes is not counted, so the rates
    /// measure the work itself even on a machine shared with other builds and tests.
    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// Measures every benchmark for about `seconds` of CPU time each, interleaved: round-robin batches of about
    /// `sliceSeconds`, so that a baseline and the rate compared with it are measured under the same conditions
    /// (caches, clock frequency, memory bandwidth shared with other work). Each benchmark's batch size is
    /// calibrated in a warm-up.
    static func interleaved(
        _ benchmarks: [Benchmark], seconds: Double, sliceSeconds: Double = 0.01
    ) -> [String: Measurement] {
        var batch: [Int] = []
        var next = [Int](repeating: 0, count: benchmarks.count)
        for (index, benchmark) in benchmarks.enumerated() {
            let start = now()
            var count = 0
            while now() - start < max(0.05, sliceSeconds) {
                benchmark.operation(count)
                count += 1
            }
            next[index] = count
            batch.append(max(1, Int(Double(count) * sliceSeconds / (now() - start))))
        }
        var operations = [Int](repeating: 0, count: benchmarks.count)
        var elapsed = [Double](repeating: 0, count: benchmarks.count)
        while elapsed.min()! < seconds {
            for (index, benchmark) in benchmarks.enumerated() where elapsed[index] < seconds {
                let start = now()
                for _ in 0..<batch[index] {
                    benchmark.operation(next[index])
                    next[index] += 1
                }
                elapsed[index] += now() - start
                operations[index] += batch[index]
            }
        }
        var results: [String: Measurement] = [:]
        for (index, benchmark) in benchmarks.enumerated() {
            results[benchmark.key] = Measurement(name: benchmark.name, operations: operations[index], seconds: elapsed[index])
        }
        return results
    }
}
