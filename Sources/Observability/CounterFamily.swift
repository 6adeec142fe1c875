import Synchronization

/// A Prometheus counter with labels, such as `attestd_verification_failures_total{app,provider,reason}`.
/// Label sets declared up front (those known from the configuration and the code's closed lists of reasons and
/// outcomes) are exported at zero from the start, so alert rules and dashboards find every series on a fresh node,
/// and `rate()` sees a series' first increment; any other label set appears when first used. A family is safe to
/// bump from any thread.
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

    /// Exports each of `labelSets` at zero unless it already has a value; declaring never changes a count.
    public func declare<LabelSets: Sequence>(_ labelSets: LabelSets) where LabelSets.Element == [String] {
        values.withLock { values in
            for labels in labelSets {
                precondition(labels.count == labelNames.count, "\(name) takes \(labelNames.count) labels")
                if values[labels] == nil { values[labels] = 0 }
            }
        }
    }

    /// Every label set that takes one value from each column, in order: `combinations(["a","b"], ["x"])` is
    /// `[["a","x"], ["b","x"]]`.
    public static func combinations(_ columns: [String]...) -> [[String]] {
        columns.reduce([[]]) { sets, column in sets.flatMap { set in column.map { set + [$0] } } }
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
