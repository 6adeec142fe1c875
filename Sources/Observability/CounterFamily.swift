import Synchronization

/// A Prometheus counter with labels, such as `attestd_verification_failures_total{app,provider,reason}`.
/// Label sets appear as they are first used; a family is safe to bump from any thread.
public final class CounterFamily: Sendable, MetricFamily {
    public let name: String
    public let help: String
    public let labelNames: [String]
    private let values = Mutex<[[String]: Int]>([:])

    public init(name: String, help: String, labelNames: [String]) {
        self.name = name
        self.help = help
        self.labelNames = labelNames
    }

    /// Adds `amount` to the counter for `labelValues` (one value per label name, in order).
    public func increment(_ labelValues: [String], by amount: Int = 1) {
        precondition(labelValues.count == labelNames.count, "\(name) takes \(labelNames.count) labels")
        values.withLock { $0[labelValues, default: 0] += amount }
    }

    /// The current value for `labelValues`, zero if never bumped.
    public func value(_ labelValues: [String]) -> Int {
        values.withLock { $0[labelValues] ?? 0 }
    }

    public func render(into output: inout String) {
        output += "# HELP \(name) \(help)\n# TYPE \(name) counter\n"
        let snapshot = values.withLock { $0 }
        for (labels, value) in snapshot.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            output += name
            PrometheusText.appendLabels(zip(labelNames, labels), to: &output)
            output += " \(value)\n"
        }
    }
}
