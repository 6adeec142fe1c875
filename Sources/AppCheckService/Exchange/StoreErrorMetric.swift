import Observability

/// `attestd_store_errors_total{component}`: state-store calls that failed, by the part of attestd that made them.
/// Each such request was answered UNAVAILABLE (attestd fails closed), so a rise here is an outage to page on.
enum StoreErrorMetric {
    /// The token exchanges, the replay checks of VerifyAppCheckToken, and the key service.
    static let exchange = "exchange"
    /// The gateway's consumption of limited-use tokens.
    static let gateway = "gateway"
    /// The receipt refresher's schedule: claims, outcomes, keys added to it.
    static let receipts = "receipts"

    /// The family, with every component exported at zero.
    static func family() -> CounterFamily {
        let family = CounterFamily(
            name: "attestd_store_errors_total",
            help: "State-store calls that failed (each answered UNAVAILABLE), by the component that made them.",
            labelNames: ["component"])
        family.declare([[exchange], [gateway], [receipts]])
        return family
    }
}
