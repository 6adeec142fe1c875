extension RedisStateStore: ReceiptRefreshStore {
    /// The sorted set of key-hash names by next refresh time.
    var receiptScheduleKey: [UInt8] { key("receipts:", Array("due".utf8)) }

    public func claimReceiptRefreshes(now: Int64, limit: Int, leaseUntil: Int64, owner: String) throws(StoreError) -> [ReceiptRefreshClaim] {
        let reply = try evaluate(.claimReceiptRefreshes, keys: [receiptScheduleKey], [now, max(0, limit), leaseUntil, owner])
        guard case .array(let items) = reply, items.count % 5 == 0 else { throw unexpected(reply, "receipt-claim") }
        let hashPrefix = key("key:", []).count
        var claims: [ReceiptRefreshClaim] = []
        for index in stride(from: 0, to: items.count, by: 5) {
            guard case .string(let member) = items[index], member.count > hashPrefix,
                  let appID = items[index + 1].text, let environment = items[index + 2].text,
                  case .string(let publicKey) = items[index + 3], case .string(let receipt) = items[index + 4]
            else { throw unexpected(reply, "receipt-claim") }
            claims.append(ReceiptRefreshClaim(
                keyID: Array(member[hashPrefix...]), appID: appID, environment: environment, publicKey: publicKey,
                receipt: receipt))
        }
        return claims
    }

    /// Walks the key hashes with SCAN, a thousand at a time, one script per step.
    public func scheduleUnscheduledKeys() throws(StoreError) -> Int {
        // The prefix is matched literally: glob characters in it are escaped.
        var pattern: [UInt8] = []
        for byte in key("key:", []) {
            if [UInt8(ascii: "*"), UInt8(ascii: "?"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "\\")].contains(byte) {
                pattern.append(UInt8(ascii: "\\"))
            }
            pattern.append(byte)
        }
        pattern.append(UInt8(ascii: "*"))
        var cursor = "0"
        var added = 0
        repeat {
            let reply = try evaluate(.scheduleUnscheduled, keys: [receiptScheduleKey], [cursor, pattern, 1_000])
            guard case .array(let items) = reply, items.count == 2, let next = items[0].text, let count = items[1].integer
            else { throw unexpected(reply, "receipt-backfill") }
            cursor = next
            added += Int(count)
        } while cursor != "0"
        return added
    }

    public func completeReceiptRefresh(_ completion: ReceiptRefreshCompletion) throws(StoreError) -> Bool {
        let reply = try evaluate(.completeReceiptRefresh, keys: [receiptScheduleKey, key("key:", completion.keyID)], [
            completion.owner, completion.nextRefreshAt, completion.checkedAt, completion.status,
            completion.newReceipt == nil ? "0" : "1", completion.newReceipt ?? [],
            completion.riskMetric == nil ? "0" : "1", completion.riskMetric ?? 0,
        ])
        guard let stored = reply.integer else { throw unexpected(reply, "receipt-complete") }
        return stored == 1
    }
}
