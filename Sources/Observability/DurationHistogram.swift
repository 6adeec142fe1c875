import Synchronization

/// A histogram of durations, filled from any thread: one uncontended lock and a few additions per record.
public final class DurationHistogram: Sendable {
    private struct Counts {
        var buckets: [Int]
        var sumSeconds: Double = 0
    }

    /// Bucket bounds in seconds, ascending; a last bucket holds the rest.
    public let bounds: [Double]
    private let counts: Mutex<Counts>

    public init(bounds: [Double] = RequestMetrics.defaultBuckets) {
        self.bounds = bounds
        counts = Mutex(Counts(buckets: Array(repeating: 0, count: bounds.count + 1)))
    }

    /// Records the time from `start` to `end`, both CLOCK_MONOTONIC nanoseconds (0 if `end` is earlier).
    public func record(from start: UInt64, to end: UInt64) {
        let seconds = Double(end &- min(start, end)) / 1e9
        let bucket = bounds.firstIndex(where: { seconds <= $0 }) ?? bounds.count
        counts.withLock { counts in
            counts.buckets[bucket] += 1
            counts.sumSeconds += seconds
        }
    }

    /// Durations recorded so far.
    public var count: Int { counts.withLock { $0.buckets.reduce(0, +) } }

    /// Appends this histogram as Prometheus text samples of `name` with `labels` (its `# TYPE` line is the caller's).
    func render(name: String, labels: [(String, String)], into output: inout String) {
        let snapshot = counts.withLock { $0 }
        PrometheusText.appendHistogram(
            name: name, labels: labels, bounds: bounds, bucketCounts: snapshot.buckets, sum: snapshot.sumSeconds, to: &output)
    }
}

/// Where a request's time went besides its own work, by stage: `attestd_request_stage_seconds{stage}`.
///
/// `attestd_request_duration_seconds` runs from a request's last byte to its answer being made; `verifier_queue` is
/// a part of that, and `answer_return` comes after it. They are where the latency of a loaded server grows while its
/// work stays the same.
public final class RequestStageMetrics: Sendable, MetricFamily {
    private let stages: [(name: String, histogram: DurationHistogram)]

    /// - Parameter stages: each stage's label value and its histogram, in the order they are rendered.
    public init(_ stages: [(name: String, histogram: DurationHistogram)]) {
        self.stages = stages
    }

    public func render(into output: inout String) {
        output += "# HELP attestd_request_stage_seconds Time requests spent in each stage between their last byte and "
        output += "their answer: verifier_queue (waiting for a verifier thread), answer_return (from the answer being made on "
        output += "another thread to its event loop taking it up).\n"
        output += "# TYPE attestd_request_stage_seconds histogram\n"
        for stage in stages {
            stage.histogram.render(name: "attestd_request_stage_seconds", labels: [("stage", stage.name)], into: &output)
        }
    }
}
