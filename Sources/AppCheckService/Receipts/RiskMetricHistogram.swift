import Observability
import Synchronization

/// `attestd_risk_metric{app}`: a Prometheus histogram of the risk metrics in the receipts refreshed so far, by
/// app, so an operator sees how many devices mint many keys (Apple's metric counts attestations of the app on the
/// device over about 30 days; 1 is a normal device).
final class RiskMetricHistogram: Sendable, MetricFamily {
    static let name = "attestd_risk_metric"
    /// Upper bounds of the buckets; +Inf is implied.
    static let bounds = [1, 2, 3, 5, 10, 20, 50]

    private struct Series {
        var buckets = [Int](repeating: 0, count: RiskMetricHistogram.bounds.count)
        var count = 0
        var sum = 0
    }

    private let series = Mutex<[String: Series]>([:])

    /// Exports `apps` with empty histograms, so dashboards find each from the start.
    func declare(apps: [String]) {
        series.withLock { series in
            for app in apps where series[app] == nil { series[app] = Series() }
        }
    }

    func observe(_ metric: Int, app: String) {
        series.withLock { series in
            var entry = series[app] ?? Series()
            for (index, bound) in Self.bounds.enumerated() where metric <= bound { entry.buckets[index] += 1 }
            entry.count += 1
            entry.sum += metric
            series[app] = entry
        }
    }

    func render(into output: inout String) {
        let name = Self.name
        output += "# HELP \(name) Apple's fraud-risk metric in refreshed App Attest receipts, by app.\n"
        output += "# TYPE \(name) histogram\n"
        for (app, entry) in series.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
            // App ids are `1:<digits>:ios:<hex>`, checked at start: nothing to escape.
            for (index, bound) in Self.bounds.enumerated() {
                output += "\(name)_bucket{app=\"\(app)\",le=\"\(bound)\"} \(entry.buckets[index])\n"
            }
            output += "\(name)_bucket{app=\"\(app)\",le=\"+Inf\"} \(entry.count)\n"
            output += "\(name)_sum{app=\"\(app)\"} \(entry.sum)\n"
            output += "\(name)_count{app=\"\(app)\"} \(entry.count)\n"
        }
    }
}
