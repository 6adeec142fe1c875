/// One write the store asks of the writer thread, and what it answers.
enum SQLiteWrite: Sendable {
    case consumeChallenge(nonce: [UInt8], expiresAt: Int64, now: Int64)
    case consumeToken(id: String, expiresAt: Int64, now: Int64)
    case registerKey(AttestedKeyRecord)
    case advanceCounter(keyID: [UInt8], counter: UInt32, now: Int64)
    case revokeKey(keyID: [UInt8], now: Int64)
    /// Deletes at most `limit` challenges and as many tokens whose expiry is before `expiredBefore`.
    case sweep(expiredBefore: Int64, limit: Int)
    /// The receipt refresher's claims and completions (`SQLiteReceiptWrite`).
    case receipts(SQLiteReceiptWrite)
    /// Two writes of one caller, in order in the same transaction (one round trip to the writer thread); the second
    /// runs only when the first changed a row.
    indirect case sequence(first: SQLiteWrite, then: SQLiteWrite)

    enum Outcome: Sendable {
        case changed(Bool)
        case counter(CounterAdvance)
        case swept(Int)
        case receipts(SQLiteReceiptWrite.Outcome)
        /// The outcomes of a `sequence`; `second` is nil when the first write changed nothing.
        indirect case sequence(first: Outcome, second: Outcome?)
    }

    /// Runs the write on the writer's connection, inside the batch's transaction.
    func perform(on connection: SQLiteConnection) throws(StoreError) -> Outcome {
        switch self {
        case .consumeChallenge(let nonce, let expiresAt, let now):
            return .changed(try connection.run(SQLiteSchema.consumeChallenge, [.blob(nonce), .integer(expiresAt), .integer(now)]) == 1)
        case .consumeToken(let id, let expiresAt, let now):
            return .changed(try connection.run(SQLiteSchema.consumeToken, [.text(id), .integer(expiresAt), .integer(now)]) == 1)
        case .registerKey(let record):
            try connection.run(SQLiteSchema.registerKey, [
                .blob(record.keyID), .text(record.appID), .text(record.environment), .blob(record.publicKey),
                .integer(record.firstSeen), .integer(record.lastSeen), .integer(Int64(record.counter)),
                record.riskMetric.map { .integer(Int64($0)) } ?? .null, .integer(record.revoked ? 1 : 0),
            ])
            if let receipt = record.receipt {
                try connection.run(SQLiteSchema.storeReceipt, [.blob(record.keyID), .blob(receipt)])
            } else {
                try connection.run(SQLiteSchema.dropReceipt, [.blob(record.keyID)])
            }
            return .changed(true)
        case .advanceCounter(let keyID, let counter, let now):
            if try connection.run(SQLiteSchema.advanceCounter, [.integer(Int64(counter)), .integer(now), .blob(keyID)]) == 1 {
                return .counter(.advanced)
            }
            // Nothing changed: the same transaction still holds the write lock, so this read explains that update.
            var state: (counter: Int64, revoked: Bool)?
            try connection.query(SQLiteSchema.counterState, [.blob(keyID)]) { row in
                state = (row.integer(0) ?? 0, (row.integer(1) ?? 0) != 0)
            }
            guard let state else { return .counter(.unknownKey) }
            if state.revoked { return .counter(.revoked) }
            return .counter(.notIncreasing(stored: UInt32(clamping: state.counter)))
        case .revokeKey(let keyID, let now):
            return .changed(try connection.run(SQLiteSchema.revokeKey, [.integer(now), .blob(keyID)]) == 1)
        case .sequence(let first, let then):
            let outcome = try first.perform(on: connection)
            guard case .changed(true) = outcome else { return .sequence(first: outcome, second: nil) }
            return .sequence(first: outcome, second: try then.perform(on: connection))
        case .receipts(let write):
            return .receipts(try write.perform(on: connection))
        case .sweep(let expiredBefore, let limit):
            let challenges = try connection.run(SQLiteSchema.sweepChallenges, [.integer(expiredBefore), .integer(Int64(limit))])
            let tokens = try connection.run(SQLiteSchema.sweepTokens, [.integer(expiredBefore), .integer(Int64(limit))])
            return .swept(challenges + tokens)
        }
    }
}
