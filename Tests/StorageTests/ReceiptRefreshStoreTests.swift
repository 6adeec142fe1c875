import Storage
import Testing

/// The receipt refresher's schedule and leases (`ReceiptRefreshStore`), against every store.
@Suite("Receipt refresh schedule")
struct ReceiptRefreshStoreTests {
    static func record(_ id: UInt8, at time: Int64, receipt: [UInt8]? = [0x30, 0x80, 0x00]) -> AttestedKeyRecord {
        AttestedKeyRecord(keyID: [id, 0, id], appID: "1:1:ios:a", environment: "production",
                          publicKey: [4] + Array(repeating: id, count: 64), firstSeen: time, lastSeen: time, receipt: receipt)
    }

    static func refreshing(_ kind: StoreKind) throws -> (StoreFixture, any ReceiptRefreshStore) {
        let fixture = try StoreFixture(kind)
        let refreshing = try #require(fixture.store as? any ReceiptRefreshStore)
        return (fixture, refreshing)
    }

    @Test("a newly registered key with a receipt is due at once; one without a receipt never", arguments: StoreKind.keepingReceiptSchedule)
    func newKeysAreDue(kind: StoreKind) throws {
        let (fixture, store) = try Self.refreshing(kind)
        let now = fixture.now
        try fixture.store.registerKey(Self.record(1, at: now))
        try fixture.store.registerKey(Self.record(2, at: now, receipt: nil))
        let claims = try store.claimReceiptRefreshes(now: now, limit: 10, leaseUntil: now + 60, owner: "a")
        #expect(claims.map(\.keyID) == [[1, 0, 1]])
        #expect(claims.first?.receipt == [0x30, 0x80, 0x00])
        #expect(claims.first?.publicKey == [4] + Array(repeating: 1, count: 64))
    }

    @Test("a claimed key is not claimed again until its lease ends", arguments: StoreKind.keepingReceiptSchedule)
    func leaseExcludesOthers(kind: StoreKind) throws {
        let (fixture, store) = try Self.refreshing(kind)
        let now = fixture.now
        try fixture.store.registerKey(Self.record(1, at: now))
        #expect(try store.claimReceiptRefreshes(now: now, limit: 10, leaseUntil: now + 60, owner: "a").count == 1)
        #expect(try store.claimReceiptRefreshes(now: now + 59, limit: 10, leaseUntil: now + 120, owner: "b").isEmpty)
        // The first owner died: once the lease ended another node takes the key, and the stale owner cannot complete.
        #expect(try store.claimReceiptRefreshes(now: now + 60, limit: 10, leaseUntil: now + 120, owner: "b").count == 1)
        let stale = ReceiptRefreshCompletion(keyID: [1, 0, 1], owner: "a", checkedAt: now + 61, status: 200,
                                             newReceipt: [1], riskMetric: 9, nextRefreshAt: now + 1_000)
        #expect(try !store.completeReceiptRefresh(stale))
        #expect(try fixture.store.attestedKey([1, 0, 1])?.receipt == [0x30, 0x80, 0x00])
    }

    @Test("two nodes claiming at once split the due keys between them", arguments: StoreKind.keepingReceiptSchedule)
    func concurrentClaimsAreDisjoint(kind: StoreKind) throws {
        let (fixture, store) = try Self.refreshing(kind)
        let now = fixture.now
        for id in UInt8(1)...20 { try fixture.store.registerKey(Self.record(id, at: now)) }
        let claimed = onThreads(4) { index in
            (try? store.claimReceiptRefreshes(now: now, limit: 20, leaseUntil: now + 60, owner: "node-\(index)"))?.map(\.keyID) ?? []
        }
        let all = claimed.flatMap { $0 }
        #expect(all.count == 20)
        #expect(Set(all).count == 20)
    }

    @Test("a completed refresh stores the new receipt and metric, and the key is due again at the time given", arguments: StoreKind.keepingReceiptSchedule)
    func completionStoresAndReschedules(kind: StoreKind) throws {
        let (fixture, store) = try Self.refreshing(kind)
        let now = fixture.now
        try fixture.store.registerKey(Self.record(1, at: now))
        _ = try store.claimReceiptRefreshes(now: now, limit: 10, leaseUntil: now + 60, owner: "a")
        #expect(try store.completeReceiptRefresh(ReceiptRefreshCompletion(
            keyID: [1, 0, 1], owner: "a", checkedAt: now, status: 200, newReceipt: [0x30, 1], riskMetric: 4,
            nextRefreshAt: now + 100)))
        let record = try fixture.store.attestedKey([1, 0, 1])
        #expect(record?.receipt == [0x30, 1])
        #expect(record?.riskMetric == 4)
        #expect(try store.claimReceiptRefreshes(now: now + 99, limit: 10, leaseUntil: now + 200, owner: "b").isEmpty)
        let again = try store.claimReceiptRefreshes(now: now + 100, limit: 10, leaseUntil: now + 200, owner: "b")
        #expect(again.first?.receipt == [0x30, 1])
        // A 304: the check is recorded, the receipt kept.
        #expect(try store.completeReceiptRefresh(ReceiptRefreshCompletion(
            keyID: [1, 0, 1], owner: "b", checkedAt: now + 100, status: 304, nextRefreshAt: now + 300)))
        #expect(try fixture.store.attestedKey([1, 0, 1])?.receipt == [0x30, 1])
        #expect(try fixture.store.attestedKey([1, 0, 1])?.riskMetric == 4)
    }

    @Test("revoked keys are never claimed, and the limit is honoured oldest first", arguments: StoreKind.keepingReceiptSchedule)
    func revokedAndLimit(kind: StoreKind) throws {
        let (fixture, store) = try Self.refreshing(kind)
        let now = fixture.now
        for id in UInt8(1)...3 { try fixture.store.registerKey(Self.record(id, at: now)) }
        #expect(try fixture.store.revokeKey([2, 0, 2], now: now))
        let first = try store.claimReceiptRefreshes(now: now, limit: 1, leaseUntil: now + 60, owner: "a")
        #expect(first.count == 1)
        let rest = try store.claimReceiptRefreshes(now: now, limit: 10, leaseUntil: now + 60, owner: "a")
        #expect(Set((first + rest).map(\.keyID)) == [[1, 0, 1], [3, 0, 3]])
    }

    @Test("a key registered again with a receipt after it had none becomes due", arguments: StoreKind.keepingReceiptSchedule)
    func receiptArrivesLater(kind: StoreKind) throws {
        let (fixture, store) = try Self.refreshing(kind)
        let now = fixture.now
        try fixture.store.registerKey(Self.record(1, at: now, receipt: nil))
        #expect(try store.claimReceiptRefreshes(now: now, limit: 10, leaseUntil: now + 60, owner: "a").isEmpty)
        try fixture.store.registerKey(Self.record(1, at: now))
        #expect(try store.claimReceiptRefreshes(now: now, limit: 10, leaseUntil: now + 60, owner: "a").map(\.keyID) == [[1, 0, 1]])
    }
}
