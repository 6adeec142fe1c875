/// Where one key stands in the receipt refresher's schedule; a key with no entry is due at once.
struct ReceiptScheduleEntry: Sendable {
    var nextAt: Int64
    var owner: String?
    var checkedAt: Int64?
    var status: Int?
}

extension MemoryStateStore: ReceiptRefreshStore {
    /// Walks every key: fine for the memory store's sizes (tests, single small nodes). The due keys of all shards
    /// are ordered together, then each is claimed in its shard if it is still due there.
    public func claimReceiptRefreshes(now: Int64, limit: Int, leaseUntil: Int64, owner: String) throws(StoreError) -> [ReceiptRefreshClaim] {
        let due = keys.map { $0.due(now: now) }.joined().sorted { $0.nextAt < $1.nextAt }
        var claims: [ReceiptRefreshClaim] = []
        for candidate in due where claims.count < limit {
            let claim = keys.withLock(for: candidate.keyID) {
                $0.claim(candidate.keyID, now: now, leaseUntil: leaseUntil, owner: owner)
            }
            if let claim { claims.append(claim) }
        }
        return claims
    }

    public func completeReceiptRefresh(_ completion: ReceiptRefreshCompletion) throws(StoreError) -> Bool {
        keys.withLock(for: completion.keyID) { shard in
            guard let entry = shard.receiptSchedule[completion.keyID], entry.owner == completion.owner else { return false }
            shard.receiptSchedule[completion.keyID] = ReceiptScheduleEntry(
                nextAt: completion.nextRefreshAt, owner: nil, checkedAt: completion.checkedAt, status: completion.status)
            if let receipt = completion.newReceipt, var record = shard.records[completion.keyID] {
                record.receipt = receipt
                record.riskMetric = completion.riskMetric
                shard.records[completion.keyID] = record
            }
            return true
        }
    }
}

extension KeyShard {
    /// The keys here with a receipt to refresh at `now`, and when each fell due.
    func due(now: Int64) -> [(keyID: [UInt8], nextAt: Int64)] {
        records.values.compactMap { record in
            let nextAt = receiptSchedule[record.keyID]?.nextAt ?? 0
            return !record.revoked && record.receipt != nil && nextAt <= now ? (record.keyID, nextAt) : nil
        }
    }

    /// Leases `keyID`'s refresh to `owner` until `leaseUntil`, if it is still due at `now`.
    mutating func claim(_ keyID: [UInt8], now: Int64, leaseUntil: Int64, owner: String) -> ReceiptRefreshClaim? {
        guard let record = records[keyID], !record.revoked, let receipt = record.receipt else { return nil }
        var entry = receiptSchedule[keyID] ?? ReceiptScheduleEntry(nextAt: 0)
        guard entry.nextAt <= now else { return nil }
        entry.nextAt = leaseUntil
        entry.owner = owner
        receiptSchedule[keyID] = entry
        return ReceiptRefreshClaim(
            keyID: record.keyID, appID: record.appID, environment: record.environment, publicKey: record.publicKey,
            receipt: receipt)
    }
}
