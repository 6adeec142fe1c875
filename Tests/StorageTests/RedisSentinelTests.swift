import Foundation
import Storage
import Testing

@Suite("Redis state store through Sentinel")
struct RedisSentinelTests {
    let expiresAt = Int64(Date().timeIntervalSince1970) + 300

    func record(_ id: UInt8) -> AttestedKeyRecord {
        AttestedKeyRecord(keyID: [id], appID: "1:1:ios:a", environment: "production", publicKey: [4, 1, 2],
                          firstSeen: 1_000, lastSeen: 1_000)
    }

    /// Polls `condition` every 50 ms for at most `seconds`.
    func eventually(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < deadline
        return false
    }

    /// A number field of `INFO replication` (`master_repl_offset`, `slave_repl_offset`).
    func replicationField(_ server: RedisServer, _ name: String) -> Int? {
        let info = (try? server.cli(["INFO", "replication"])) ?? ""
        guard let line = info.split(whereSeparator: \.isNewline).first(where: { $0.hasPrefix(name + ":") }) else { return nil }
        return Int(line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces))
    }

    @Test("finds the master through a sentinel, and after the master dies finds the promoted replica, state intact")
    func failover() throws {
        // Redis 7 waits 5 s (repl-diskless-sync-delay) before the first sync, for more replicas to join; this test has
        // one, and waits for it to be synced.
        let master = try RedisServer(arguments: ["--repl-diskless-sync-delay", "0"])
        let replica = try RedisServer(arguments: ["--replicaof", "127.0.0.1", String(master.port)])
        // The sentinel learns of the replica from the master, so the replica is attached, and synced, before it starts.
        #expect(eventually(30) { ((try? master.cli(["INFO", "replication"])) ?? "").contains("state=online") })
        let sentinel = try RedisSentinel(monitoring: master.port, name: "attestd-test")
        let store = RedisStateStore(RedisConfiguration(
            port: 1, reconnectBackoffMilliseconds: 20, maxReconnectBackoffMilliseconds: 200,
            sentinel: RedisSentinelConfiguration(
                sentinels: [.init(host: "127.0.0.1", port: try RedisServer.freePort()),  // nobody there: skipped
                            .init(host: "127.0.0.1", port: sentinel.port)],
                masterName: "attestd-test")))

        #expect(try store.consumeChallenge([1], expiresAt: expiresAt))
        try store.registerKey(record(1))
        #expect(try store.advanceCounter(keyID: [1], to: 5, now: 1_001) == .advanced)
        #expect(try master.cli(["DBSIZE"]) == "2")
        // Every write has reached the replica before the master goes (what a real failover may not guarantee): the
        // replica has processed the master's whole replication stream. (Not WAIT from redis-cli: WAIT counts the
        // replicas that have the *calling connection's* writes, and redis-cli's connection has made none.)
        #expect(eventually(10) {
            guard let written = replicationField(master, "master_repl_offset") else { return false }
            return replicationField(replica, "slave_repl_offset") == written
        })
        #expect(eventually(10) { ((try? sentinel.cli(["SENTINEL", "replicas", "attestd-test"])) ?? "").contains(String(replica.port)) })
        master.stop()

        // Fails closed meanwhile, then the sentinel promotes the replica and the store finds it by itself.
        var attempt: UInt8 = 100
        let recovered = eventually(30) {
            attempt &+= 1
            return (try? store.consumeChallenge([attempt], expiresAt: expiresAt)) == true
        }
        #expect(recovered)
        #expect(try replica.cli(["ROLE"]).hasPrefix("master"))
        #expect(try !store.consumeChallenge([1], expiresAt: expiresAt))
        #expect(try !store.consumeChallenge([attempt], expiresAt: expiresAt))
        #expect(try store.advanceCounter(keyID: [1], to: 5, now: 1_002) == .notIncreasing(stored: 5))
        #expect(try store.advanceCounter(keyID: [1], to: 6, now: 1_002) == .advanced)
    }

    @Test("gives StoreError when no sentinel knows the master's name")
    func unknownName() throws {
        let master = try RedisServer()
        let sentinel = try RedisSentinel(monitoring: master.port, name: "known")
        let store = RedisStateStore(RedisConfiguration(
            sentinel: RedisSentinelConfiguration(sentinels: [.init(host: "127.0.0.1", port: sentinel.port)],
                                                 masterName: "unknown")))
        let error = #expect(throws: StoreError.self) { try store.consumeChallenge([1], expiresAt: expiresAt) }
        #expect(error?.description.contains("unknown") == true)
    }
}
