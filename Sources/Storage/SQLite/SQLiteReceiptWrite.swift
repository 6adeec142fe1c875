/// The receipt refresher's writes, run by the writer thread like every other write.
enum SQLiteReceiptWrite: Sendable {
    case claim(now: Int64, leaseUntil: Int64, owner: String, limit: Int)
    case complete(ReceiptRefreshCompletion)

    enum Outcome: Sendable {
        case claimed([ReceiptRefreshClaim])
        case completed(Bool)
    }

    func perform(on connection: SQLiteConnection) throws(StoreError) -> Outcome {
        switch self {
        case .claim(let now, let leaseUntil, let owner, let limit):
            try connection.run(SQLiteReceiptSchema.dropUnrefreshable, [.integer(now), .integer(Int64(limit))])
            var keyIDs: [[UInt8]] = []
            try connection.query(SQLiteReceiptSchema.claim, [.integer(now), .integer(leaseUntil), .text(owner), .integer(Int64(limit))]) { row in
                if let keyID = row.blob(0) { keyIDs.append(keyID) }
            }
            // Read in the same transaction, so each record is the one the claim saw.
            var claims: [ReceiptRefreshClaim] = []
            for keyID in keyIDs {
                try connection.query(SQLiteSchema.selectKey, [.blob(keyID)]) { row in
                    guard let appID = row.text(1), let environment = row.text(2), let publicKey = row.blob(3),
                          let receipt = row.blob(7) else { return }
                    claims.append(ReceiptRefreshClaim(
                        keyID: keyID, appID: appID, environment: environment, publicKey: publicKey, receipt: receipt))
                }
            }
            return .claimed(claims)
        case .complete(let completion):
            let released = try connection.run(SQLiteReceiptSchema.complete, [
                .integer(completion.nextRefreshAt), .integer(completion.checkedAt), .integer(Int64(completion.status)),
                .blob(completion.keyID), .text(completion.owner),
            ])
            guard released == 1 else { return .completed(false) }
            if let receipt = completion.newReceipt {
                try connection.run(SQLiteSchema.storeReceipt, [.blob(completion.keyID), .blob(receipt)])
                try connection.run(SQLiteReceiptSchema.storeRiskMetric, [
                    completion.riskMetric.map { .integer(Int64($0)) } ?? .null, .blob(completion.keyID),
                ])
            }
            return .completed(true)
        }
    }
}
