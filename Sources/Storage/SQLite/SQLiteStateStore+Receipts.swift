extension SQLiteStateStore: ReceiptRefreshStore {
    public func claimReceiptRefreshes(now: Int64, limit: Int, leaseUntil: Int64, owner: String) throws(StoreError) -> [ReceiptRefreshClaim] {
        guard case .receipts(.claimed(let claims)) = try writer.submit(.receipts(.claim(now: now, leaseUntil: leaseUntil, owner: owner, limit: limit))) else {
            throw StoreError("sqlite: unexpected outcome")
        }
        return claims
    }

    public func completeReceiptRefresh(_ completion: ReceiptRefreshCompletion) throws(StoreError) -> Bool {
        guard case .receipts(.completed(let stored)) = try writer.submit(.receipts(.complete(completion))) else {
            throw StoreError("sqlite: unexpected outcome")
        }
        return stored
    }
}
