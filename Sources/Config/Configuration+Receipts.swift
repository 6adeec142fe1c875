extension Configuration {
    /// `receipts`: the background refresher that posts each active key's receipt to Apple's risk-metric endpoint.
    /// `{"enabled": false, "intervalMs": 60000, "minRefreshAgeSeconds": 86400, "maxPerSecond": 10,
    /// "retrySeconds": 600, "leaseSeconds": 300}`, every member optional.
    public struct Receipts: Sendable {
        /// Off by default: refreshing needs each app's DeviceCheck developer key (`deviceCheck`), which Apple's
        /// risk-metric endpoint authenticates.
        public var enabled: Bool
        /// How often the refresher looks for due keys when it found none (milliseconds).
        public var intervalMilliseconds: Int
        /// A receipt is not refreshed sooner than this after the last check, nor before its Not Before.
        public var minimumRefreshAgeSeconds: Int
        /// Calls to Apple per second at most, from this node, so a million keys do not hammer Apple.
        public var maxPerSecond: Int
        /// After an error or a 429, the key is due again this much later (a 429 also pauses the refresher).
        public var retrySeconds: Int
        /// How long a node holds a claimed key before another node may take it over.
        public var leaseSeconds: Int

        public init(enabled: Bool = false, intervalMilliseconds: Int = 60_000, minimumRefreshAgeSeconds: Int = 86_400,
                    maxPerSecond: Int = 10, retrySeconds: Int = 600, leaseSeconds: Int = 300) {
            self.enabled = enabled
            self.intervalMilliseconds = intervalMilliseconds
            self.minimumRefreshAgeSeconds = minimumRefreshAgeSeconds
            self.maxPerSecond = maxPerSecond
            self.retrySeconds = retrySeconds
            self.leaseSeconds = leaseSeconds
        }
    }

    package static func readReceipts(_ reader: JSONFieldReader?) -> Receipts {
        guard let reader else { return Receipts() }
        reader.rejectUnknownKeys(except: [
            "enabled", "intervalMs", "minRefreshAgeSeconds", "maxPerSecond", "retrySeconds", "leaseSeconds",
        ])
        return Receipts(
            enabled: reader.bool("enabled", default: false),
            intervalMilliseconds: reader.integer("intervalMs", default: 60_000, in: 10...86_400_000),
            minimumRefreshAgeSeconds: reader.integer("minRefreshAgeSeconds", default: 86_400, in: 0...90 * 86_400),
            maxPerSecond: reader.integer("maxPerSecond", default: 10, in: 1...10_000),
            retrySeconds: reader.integer("retrySeconds", default: 600, in: 1...86_400),
            leaseSeconds: reader.integer("leaseSeconds", default: 300, in: 5...86_400))
    }
}
