import Foundation
@testable import Storage
import Synchronization
import Testing

/// The Redis Cluster store's own concerns, on real clusters: key slots, redirections while a slot moves, and the
/// replica acknowledgement that makes a failover lose nothing. The contract itself runs in `StateStoreSemanticsTests`.
@Suite("Redis Cluster store", .serialized)
struct RedisClusterTests {
    static func record(_ id: [UInt8]) -> AttestedKeyRecord {
        AttestedKeyRecord(keyID: id, appID: "1:1:ios:a", environment: "production",
                          publicKey: [4] + Array(repeating: 7, count: 64), firstSeen: 1_000, lastSeen: 1_000)
    }

    @Test("computes key slots as the cluster spec's examples do, hash tags included")
    func slotsOfTheSpec() {
        #expect(Array("123456789".utf8).withUnsafeBufferPointer { RedisKeySlot.crc16($0) } == 0x31C3)
        #expect(RedisKeySlot.of(Array("foo".utf8)) == 12182)
        #expect(RedisKeySlot.of(Array("{user1000}.following".utf8)) == RedisKeySlot.of(Array("user1000".utf8)))
        #expect(RedisKeySlot.of(Array("foo{{bar}}zap".utf8)) == RedisKeySlot.of(Array("{bar".utf8)))
        // An empty tag is no tag: the whole key is hashed.
        #expect(RedisKeySlot.of(Array("foo{}{bar}".utf8)) == Int(Array("foo{}{bar}".utf8).withUnsafeBufferPointer { RedisKeySlot.crc16($0) } & 0x3FFF))
    }

    @Test("agrees with CLUSTER KEYSLOT of a real cluster, and keeps an attested key's hash in its id's slot")
    func slotsOfARealCluster() throws {
        let servers = try SharedRedisCluster.servers()
        var generator = SystemRandomNumberGenerator()
        for index in 0..<40 {
            let name = "k\(index):\(generator.next() % 1_000_000)" + (index % 4 == 0 ? "{tag\(index)}x" : "")
            let answered = try servers.nodes[0].cli(["CLUSTER", "KEYSLOT", name])
            #expect(Int(answered) == RedisKeySlot.of(Array(name.utf8)), "\(name)")
        }
        let store = RedisClusterStateStore(RedisClusterConfiguration(seeds: servers.seeds))
        let key = store.recordKey([0x7B, 0x7D, 0xAB])
        #expect(String(decoding: key, as: UTF8.self) == "attestd:key:{7b7dab}")
        #expect(RedisKeySlot.of(key) == RedisKeySlot.of(Array("7b7dab".utf8)))
    }

    @Test("is not a receipt refresh store: the schedule would span slots")
    func keepsNoReceiptSchedule() throws {
        let store: any StateStore = RedisClusterStateStore(RedisClusterConfiguration(seeds: [.init(host: "127.0.0.1", port: 1)]))
        #expect(!(store is any ReceiptRefreshStore))
    }

    @Test("follows ASK while a key's slot migrates and MOVED once it has moved, without a restart")
    func redirections() throws {
        let servers = try RedisClusterServers(primaries: 3, replicasPerPrimary: 0)
        let store = RedisClusterStateStore(RedisClusterConfiguration(seeds: servers.seeds, replicasToAcknowledge: 0))
        let id: [UInt8] = [1, 2, 3]
        try store.registerKey(Self.record(id))
        #expect(try store.advanceCounter(keyID: id, to: 1, now: 1_001) == .advanced)
        let name = String(decoding: store.recordKey(id), as: UTF8.self)
        let slot = RedisKeySlot.of(store.recordKey(id))
        let source = try servers.primary(of: slot)
        let target = try #require(servers.nodes.first { $0.port != source.node.port })
        let targetID = try servers.id(of: target)
        #expect(try target.cli(["CLUSTER", "SETSLOT", String(slot), "IMPORTING", source.id]) == "OK")
        #expect(try source.node.cli(["CLUSTER", "SETSLOT", String(slot), "MIGRATING", targetID]) == "OK")
        #expect(try source.node.cli(["MIGRATE", "127.0.0.1", String(target.port), "", "0", "5000", "KEYS", name]) == "OK")
        // The source no longer has the key: it answers ASK, and the store asks the target.
        #expect(try store.attestedKey(id)?.counter == 1)
        #expect(try store.advanceCounter(keyID: id, to: 2, now: 1_002) == .advanced)
        for node in servers.nodes {
            #expect(try node.cli(["CLUSTER", "SETSLOT", String(slot), "NODE", targetID]) == "OK")
        }
        // The store's map still names the source, which answers MOVED.
        #expect(try store.advanceCounter(keyID: id, to: 3, now: 1_003) == .advanced)
        #expect(try store.attestedKey(id)?.counter == 3)
        #expect(try target.cli(["HGET", name, "counter"]) == "3")
        #expect(try source.node.cli(["EXISTS", name]) != "1")
    }

    @Test("fails a write closed when no replica acknowledges it in time, keeps the challenge burnt, and recovers")
    func replicaAcknowledgement() throws {
        let servers = try RedisClusterServers(primaries: 3, replicasPerPrimary: 1)
        let store = RedisClusterStateStore(RedisClusterConfiguration(seeds: servers.seeds))
        let expiresAt = Int64(Date().timeIntervalSince1970) + 300
        let nonce = Array("challenge-1".utf8)
        let slot = RedisKeySlot.of(Array("attestd:challenge:".utf8) + nonce)
        let primary = try servers.primary(of: slot)
        let replica = try #require(servers.nodes.first { node in
            (try? node.cli(["INFO", "replication"]))?.contains("master_port:\(primary.node.port)") == true
        })
        replica.stop()
        do {
            _ = try store.consumeChallenge(nonce, expiresAt: expiresAt)
            Issue.record("a write no replica acknowledged was answered")
        } catch {
            #expect(error.description.contains("replicas required acknowledged"), "\(error)")
        }
        try replica.start()
        try servers.waitUntilReady()
        // The primary stored it: the challenge stays consumed, never usable again.
        #expect(try !store.consumeChallenge(nonce, expiresAt: expiresAt))
        #expect(try store.consumeChallenge(Array("challenge-2".utf8), expiresAt: expiresAt))
    }

    @Test("sends a batch's pipelines to every primary before reading any: their replica waits overlap")
    func pipelinesOverlap() throws {
        let servers = try RedisClusterServers(primaries: 3, replicasPerPrimary: 1)
        let store = RedisClusterStateStore(RedisClusterConfiguration(
            seeds: servers.seeds, connection: RedisConfiguration(commandTimeoutMilliseconds: 10_000),
            replicaTimeoutMilliseconds: 3_000))
        let expiresAt = Int64(Date().timeIntervalSince1970) + 300
        let keys = try servers.onEveryPrimary { Array("attestd:challenge:".utf8) + RedisClusterAuthTests.nonce($0) }
            .map { Array("attestd:challenge:".utf8) + RedisClusterAuthTests.nonce($0) }
        let primaries = try keys.map { try servers.primary(of: RedisKeySlot.of($0)).node }
        // With no replica, each primary's WAIT blocks for the whole replica timeout.
        try store.ping()
        for node in servers.nodes where !primaries.contains(where: { $0 === node }) { node.stop() }
        let outcomes = Mutex<[Result<RedisReply, StoreError>]?>(nil)
        let batch = Thread {
            let sent = store.cluster.execute(keys.map { .script(.consume, keys: [$0], arguments: [expiresAt, expiresAt]) })
            outcomes.withLock { $0 = sent }
        }
        batch.start()
        // Sent one primary after the other, at most one WAIT would be blocked at any time.
        var blockedTogether = false
        while outcomes.withLock({ $0 == nil }), !blockedTogether {
            blockedTogether = try primaries.allSatisfy { node in
                try node.cli(["CLIENT", "LIST"]).split(whereSeparator: \.isNewline)
                    .contains { $0.contains("flags=b ") && $0.contains("cmd=wait") }
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        #expect(blockedTogether, "the primaries' WAITs never overlapped")
        while outcomes.withLock({ $0 == nil }) { Thread.sleep(forTimeInterval: 0.02) }
        for outcome in outcomes.withLock({ $0 }) ?? [] {
            #expect(throws: StoreError.self) { try outcome.get() }
        }
    }

    @Test("loses no acknowledged challenge or counter when a primary is killed and its replica takes over")
    func failover() throws {
        let servers = try RedisClusterServers(primaries: 3, replicasPerPrimary: 1)
        let store = RedisClusterStateStore(RedisClusterConfiguration(seeds: servers.seeds))
        let expiresAt = Int64(Date().timeIntervalSince1970) + 300
        let keys = (0..<60).map { [UInt8($0), 0xEE] }
        for key in keys {
            try store.registerKey(Self.record(key))
            #expect(try store.consumeChallenge([UInt8(key[0]), 1], expiresAt: expiresAt))
            #expect(try store.advanceCounter(keyID: key, to: 7, now: 1_001) == .advanced)
        }
        let victim = try servers.primary(of: RedisKeySlot.of(store.recordKey(keys[0]))).node
        victim.stop()
        // Until the replica is promoted the victim's slots fail (closed); the others answer.
        var failed = 0
        let deadline = Date().addingTimeInterval(15)
        var recovered = false
        while Date() < deadline {
            do {
                _ = try store.attestedKey(keys[0])
                recovered = true
                break
            } catch {
                failed += 1
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
        #expect(recovered, "the store never reached the promoted replica")
        #expect(failed > 0, "the killed primary's slots answered at once: the kill was not noticed")
        // The promoted replica has no replica of its own, so its writes fail (closed) until the old primary is back,
        // as its replica (which discards what it had and copies the new primary).
        try victim.start()
        try servers.waitUntilReady()
        for key in keys {
            #expect(try !store.consumeChallenge([UInt8(key[0]), 1], expiresAt: expiresAt), "challenge \(key[0])")
            #expect(try store.attestedKey(key)?.counter == 7, "key \(key[0])")
        }
    }
}
