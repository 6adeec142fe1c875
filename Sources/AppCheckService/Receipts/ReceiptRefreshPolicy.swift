import Config

/// When a key is due again after one refresh, from what Apple answered: the scheduling rules in one pure place.
struct ReceiptRefreshPolicy: Sendable {
    /// What one refresh came to.
    enum Outcome: Sendable, Equatable {
        /// 200 with a receipt that verified; its Not Before (field 19), when it has one.
        case refreshed(notBefore: Int64?)
        /// 304: asked before the stored receipt's Not Before.
        case notModified
        /// 404: Apple keeps no data for this receipt any more (about 30 days after attestation).
        case noData
        /// 200 with a receipt that did not verify: refused, the old one kept.
        case invalidReceipt
        /// 429: Apple asks us to slow down.
        case rateLimited
        /// Apple unreachable, 5xx until the attempts ran out, or our key or request refused.
        case failed
        /// The key's app is no longer configured, or has no developer key to call Apple with.
        case notConfigured
    }

    var minimumRefreshAgeSeconds: Int64
    var retrySeconds: Int64

    init(minimumRefreshAgeSeconds: Int64, retrySeconds: Int64) {
        self.minimumRefreshAgeSeconds = max(0, minimumRefreshAgeSeconds)
        self.retrySeconds = max(1, retrySeconds)
    }

    /// The next refresh time (unix seconds) of a key refreshed at `now`.
    func nextRefresh(after outcome: Outcome, now: Int64) -> Int64 {
        switch outcome {
        case .refreshed(let notBefore):
            // Never before Apple allows it, and never sooner than the configured age.
            return max(now + minimumRefreshAgeSeconds, notBefore ?? now)
        case .notModified, .noData, .invalidReceipt:
            // Nothing new to be had before then; a 404 stays 404 until the device attests again, so asking only
            // this often keeps the cost of dead keys low.
            return now + max(minimumRefreshAgeSeconds, 1)
        case .rateLimited, .failed:
            return now + retrySeconds
        case .notConfigured:
            // Configuration changes need a restart: look again only now and then.
            return now + max(minimumRefreshAgeSeconds, retrySeconds)
        }
    }

    /// Whether the refresher should stop calling Apple for a while after `outcome` (Apple's 429).
    func pausesRefresher(_ outcome: Outcome) -> Bool { outcome == .rateLimited }

    /// The metric label of an outcome.
    /// Every outcome's label, so that the refresh metric can export each at zero before it happens.
    static let outcomeLabels = [Outcome.refreshed(notBefore: nil), .notModified, .noData, .invalidReceipt, .rateLimited,
                                .failed, .notConfigured].map(label)

    static func label(_ outcome: Outcome) -> String {
        switch outcome {
        case .refreshed: "refreshed"
        case .notModified: "notModified"
        case .noData: "noData"
        case .invalidReceipt: "invalidReceipt"
        case .rateLimited: "rateLimited"
        case .failed: "failed"
        case .notConfigured: "notConfigured"
        }
    }
}
