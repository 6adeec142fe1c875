import Synchronization

/// Something that writes itself in the Prometheus text exposition format.
public protocol MetricFamily: Sendable {
    func render(into output: inout String)
}

/// Every metric family of the process, rendered together for `GET /metrics`.
public final class MetricsRegistry: Sendable {
    private let families = Mutex<[any MetricFamily]>([])

    public init() {}

    public func register(_ family: any MetricFamily) {
        families.withLock { $0.append(family) }
    }

    /// The Prometheus text (format 0.0.4) of every registered family.
    public func render() -> String {
        var output = ""
        for family in families.withLock({ $0 }) { family.render(into: &output) }
        return output
    }
}

/// Small helpers for the Prometheus text format.
enum PrometheusText {
    static func appendLabels(_ labels: some Sequence<(String, String)>, to output: inout String) {
        output += "{"
        var first = true
        for (name, value) in labels {
            if !first { output += "," }
            first = false
            output += name + "=\""
            for character in value {
                switch character {
                case "\\": output += "\\\\"
                case "\"": output += "\\\""
                case "\n": output += "\\n"
                default: output.append(character)
                }
            }
            output += "\""
        }
        output += "}"
    }

    /// The `_bucket`, `_sum` and `_count` samples of histogram `name`: `bucketCounts` holds one count per bound
    /// and a last one for the rest, not yet cumulative.
    static func appendHistogram(
        name: String, labels: [(String, String)], bounds: [Double], bucketCounts: [Int], sum: Double, to output: inout String
    ) {
        var cumulative = 0
        for (index, bound) in (bounds + [Double.infinity]).enumerated() {
            cumulative += bucketCounts[index]
            output += name + "_bucket"
            appendLabels(labels + [("le", number(bound))], to: &output)
            output += " \(cumulative)\n"
        }
        output += name + "_sum"
        appendLabels(labels, to: &output)
        output += " \(number(sum))\n"
        output += name + "_count"
        appendLabels(labels, to: &output)
        output += " \(cumulative)\n"
    }

    static func number(_ value: Double) -> String {
        if value == .infinity { return "+Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
