/// A metric read when metrics are scraped: the owner keeps the number (usually in an atomic) and the metric only asks
/// for it. A gauge, such as the number of open connections, or a counter, such as the bytes quiet connections have
/// given back so far.
public struct ScrapedMetric: Sendable, MetricFamily {
    public enum Kind: String, Sendable {
        case gauge, counter
    }

    public let kind: Kind
    public let name: String
    public let help: String
    private let read: @Sendable () -> Double

    public init(_ kind: Kind, name: String, help: String, read: @escaping @Sendable () -> Double) {
        self.kind = kind
        self.name = name
        self.help = help
        self.read = read
    }

    public func render(into output: inout String) {
        output += "# HELP \(name) \(help)\n# TYPE \(name) \(kind.rawValue)\n\(name) \(PrometheusText.number(read()))\n"
    }
}
