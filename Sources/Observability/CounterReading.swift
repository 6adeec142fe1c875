/// A counter read when metrics are scraped, such as the bytes idle connections have given back: the owner keeps the
/// running total (usually in an atomic) and the counter only asks for it.
public struct CounterReading: Sendable, MetricFamily {
    public let name: String
    public let help: String
    private let read: @Sendable () -> Double

    public init(name: String, help: String, read: @escaping @Sendable () -> Double) {
        self.name = name
        self.help = help
        self.read = read
    }

    public func render(into output: inout String) {
        output += "# HELP \(name) \(help)\n# TYPE \(name) counter\n\(name) \(PrometheusText.number(read()))\n"
    }
}
