import Foundation
import Storage
import Testing

@Suite("Redis receipt schedule backfill")
struct RedisReceiptBackfillTests {
    static func record(_ id: UInt8, receipt: [UInt8]?) -> AttestedKeyRecord {
        AttestedKeyRecord(keyID: [id, 0x2A], appID: "1:1:ios:a", environment: "production", publicKey: [4, id],
                          firstSeen: 1_000, lastSeen: 1_000, receipt: receipt)
    }

    @Test("keys registered before the schedule existed are added once; revoked and receipt-less ones are not")
    func backfill() throws {
        let server = try RedisServer()
        // A glob character in the prefix is matched literally.
        let store = RedisStateStore(RedisConfiguration(port: server.port, keyPrefix: "old*app:"))
        try store.registerKey(Self.record(1, receipt: [0x30]))
        try store.registerKey(Self.record(2, receipt: [0x30]))
        try store.registerKey(Self.record(3, receipt: nil))
        #expect(try store.revokeKey([2, 0x2A], now: 1_001))
        // As an older attestd left it: no schedule at all.
        _ = try server.cli(["DEL", "old*app:receipts:due"])
        let now = Int64(Date().timeIntervalSince1970)
        #expect(try store.claimReceiptRefreshes(now: now, limit: 10, leaseUntil: now + 60, owner: "a").isEmpty)

        #expect(try store.scheduleUnscheduledKeys() == 1)
        #expect(try store.scheduleUnscheduledKeys() == 0)
        let claims = try store.claimReceiptRefreshes(now: now, limit: 10, leaseUntil: now + 60, owner: "a")
        #expect(claims.map(\.keyID) == [[1, 0x2A]])
    }
}
