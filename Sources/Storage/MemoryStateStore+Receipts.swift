/// Where one key stands in the receipt refresher's schedule; a key with no entry is due at once.
struct ReceiptScheduleEntry: Sendable {
    var nextAt: Int64
    var owner: String?
    var checkedAt: Int64?
    var status: Int?
}

extension MemoryStateStore: ReceiptRefreshStore {
    /// Walks every key: fine for the memory store's sizes (tests, single small nodes).
    public func claimReceiptRefreshes(now: Int64, limit: Int, leaseUntil: Int64, owner: String) throws(StoreError) -> [ReceiptRefreshClaim] {
        state.withLock { state in
            let due = state.keys.values
                .filter { !$0.revoked && $0.receipt != nil && (state.receiptSchedule[$0.keyID]?.nextAt ?? 0) <= now }
                .sorted { (state.receiptSchedule[$0.keyID]?.nextAt ?? 0) < (state.receiptSchedule[$1.keyID]?.nextAt ?? 0) }
                .prefix(max(0, limit))
            return due.map { record in
                var entry = state.receiptSchedule[record.keyID] ?? ReceiptScheduleEntry(nextAt: 0)
                entry.nextAt = leaseUntil
                entry.owner = owner
                state.receiptSchedule[record.keyID] = entry
                return ReceiptRefreshClaim(
                    keyID: record.keyID, appID: record.appID, environment: record.environment,
                    publicKey: record.publicKey, receipt: record.receipt ?? [])
            }
        }
    }

    public func completeReceiptRefresh(_ completion: ReceiptRefreshCompletion) throws(StoreError) -> Bool {
        state.withLock { state in
            guard var entry = state.receiptSchedule[completion.keyID], entry.owner == completion.owner else { return false }
            entry = ReceiptScheduleEntry(
                nextAt: completion.nextRefreshAt, owner: nil, checkedAt: completion.checkedAt, status: completion.status)
            state.receiptSchedule[completion.keyID] = entry
            if let receipt = completion.newReceipt, state.keys[completion.keyID] != nil {
                state.keys[completion.keyID]!.receipt = receipt
                state.keys[completion.keyID]!.riskMetric = completion.riskMetric
            }
            return true
        }
    }
}
