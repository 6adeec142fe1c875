/// A gauge read when metrics are scraped, such as the number of open connections: the owner keeps the number
/// (usually in an atomic) and the gauge only asks for it.
public struct Gauge: Sendable, MetricFamily {
    public let name: String
    public let help: String
    private let read: @Sendable () -> Double

    public init(name: String, help: String, read: @escaping @Sendable () -> Double) {
        self.name = name
        self.help = help
        self.read = read
    }

    public func render(into output: inout String) {
        output += "# HELP \(name) \(help)\n# TYPE \(name) gauge\n\(name) \(PrometheusText.number(read()))\n"
    }
}
