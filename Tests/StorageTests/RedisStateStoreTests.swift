import Foundation
import Storage
import Testing

@Suite("Redis state store")
struct RedisStateStoreTests {
    func record(_ id: UInt8) -> AttestedKeyRecord {
        AttestedKeyRecord(keyID: [id], appID: "1:1:ios:a", environment: "production", publicKey: [4, 1, 2],
                          firstSeen: 1_000, lastSeen: 1_000)
    }

    var expiresAt: Int64 { Int64(Date().timeIntervalSince1970) + 300 }

    /// Calls `body` until it stops throwing, for at most `seconds`; returns the last error if it never did.
    func eventually(_ seconds: Double, _ body: () throws -> Void) -> (any Error)? {
        let deadline = Date().addingTimeInterval(seconds)
        var last: (any Error)?
        repeat {
            do {
                try body()
                return nil
            } catch {
                last = error
                Thread.sleep(forTimeInterval: 0.05)
            }
        } while Date() < deadline
        return last
    }

    @Test("fails closed while Redis is down, and recovers by itself, state intact, when it returns")
    func restart() throws {
        let server = try RedisServer(persistent: true)
        let store = RedisStateStore(RedisConfiguration(port: server.port, reconnectBackoffMilliseconds: 20,
                                                       maxReconnectBackoffMilliseconds: 200))
        let expiresAt = self.expiresAt
        #expect(try store.consumeChallenge([1], expiresAt: expiresAt))
        try store.registerKey(record(1))
        #expect(try store.advanceCounter(keyID: [1], to: 7, now: 1_001) == .advanced)

        server.stop()
        #expect(throws: StoreError.self) { try store.consumeChallenge([2], expiresAt: expiresAt) }
        #expect(throws: StoreError.self) { try store.advanceCounter(keyID: [1], to: 8, now: 1_002) }
        #expect(throws: StoreError.self) { try store.attestedKey([1]) }
        // While down, a call fails at once instead of waiting for a timeout (no duration is asserted, only the error).
        #expect(throws: StoreError.self) { try store.consumeToken("jti", expiresAt: expiresAt) }

        try server.start()
        #expect(eventually(10) { try store.ping() } == nil)
        #expect(try !store.consumeChallenge([1], expiresAt: expiresAt))
        #expect(try store.consumeChallenge([2], expiresAt: expiresAt))
        #expect(try store.advanceCounter(keyID: [1], to: 7, now: 1_003) == .notIncreasing(stored: 7))
        #expect(try store.advanceCounter(keyID: [1], to: 8, now: 1_003) == .advanced)
    }

    @Test("answers the first call after a restart it did not see, on a new connection")
    func staleConnections() throws {
        let server = try RedisServer(persistent: true)
        let store = RedisStateStore(RedisConfiguration(port: server.port))
        let expiresAt = self.expiresAt
        #expect(try store.consumeChallenge([1], expiresAt: expiresAt))
        server.stop()
        try server.start()
        // The pooled connection died with the old server; the call must not fail because of it.
        #expect(try !store.consumeChallenge([1], expiresAt: expiresAt))
        #expect(try store.consumeChallenge([2], expiresAt: expiresAt))
    }

    @Test("gives StoreError for a wrong password, and works with the right one, with or without a user name")
    func authentication() throws {
        let server = try RedisServer(arguments: ["--requirepass", "s3cret"])
        let wrong = RedisStateStore(RedisConfiguration(port: server.port, password: "wrong"))
        #expect(throws: StoreError.self) { try wrong.consumeChallenge([1], expiresAt: expiresAt) }
        let none = RedisStateStore(RedisConfiguration(port: server.port))
        #expect(throws: StoreError.self) { try none.consumeChallenge([1], expiresAt: expiresAt) }
        let right = RedisStateStore(RedisConfiguration(port: server.port, password: "s3cret"))
        #expect(try right.consumeChallenge([1], expiresAt: expiresAt))
        let named = RedisStateStore(RedisConfiguration(port: server.port, username: "default", password: "s3cret"))
        #expect(try !named.consumeChallenge([1], expiresAt: expiresAt))
    }

    @Test("gives StoreError when nothing listens on the configured port")
    func unreachable() throws {
        let store = RedisStateStore(RedisConfiguration(port: try RedisServer.freePort()))
        #expect(throws: StoreError.self) { try store.consumeChallenge([1], expiresAt: expiresAt) }
        #expect(throws: StoreError.self) { try store.registerKey(record(1)) }
        #expect(throws: StoreError.self) { try store.ping() }
    }

    @Test("loads its scripts again after the server forgot them")
    func scriptFlush() throws {
        let server = try RedisServer()
        let store = RedisStateStore(RedisConfiguration(port: server.port))
        try store.registerKey(record(1))
        #expect(try store.advanceCounter(keyID: [1], to: 1, now: 1_001) == .advanced)
        #expect(try server.cli(["SCRIPT", "FLUSH"]) == "OK")
        #expect(try store.advanceCounter(keyID: [1], to: 2, now: 1_002) == .advanced)
        #expect(try store.revokeKey([1], now: 1_003))
        #expect(try server.cli(["SCRIPT", "FLUSH"]) == "OK")
        #expect(try store.advanceCounter(keyID: [1], to: 3, now: 1_004) == .revoked)
    }

    @Test("keeps deployments with different key prefixes apart, and sets a TTL on consumed records")
    func prefixes() throws {
        let server = try RedisServer()
        let first = RedisStateStore(RedisConfiguration(port: server.port, keyPrefix: "one:"))
        let second = RedisStateStore(RedisConfiguration(port: server.port, keyPrefix: "two:"))
        let expiresAt = self.expiresAt
        #expect(try first.consumeChallenge(Array("n".utf8), expiresAt: expiresAt))
        #expect(try second.consumeChallenge(Array("n".utf8), expiresAt: expiresAt))
        #expect(try first.consumeToken("jti", expiresAt: expiresAt))
        #expect(try server.cli(["EXPIRETIME", "one:challenge:n"]) == String(expiresAt + 60))
        #expect(try server.cli(["EXPIRETIME", "one:token:jti"]) == String(expiresAt + 60))
        try first.registerKey(record(1))
        #expect(try second.attestedKey([1]) == nil)
    }

    @Test("keeps consumed challenges and tokens until their expiry plus the configured clock-skew allowance")
    func allowance() throws {
        let server = try RedisServer()
        var configuration = RedisConfiguration(port: server.port, keyPrefix: "p:")
        configuration.clockSkewSeconds = 90
        let store = RedisStateStore(configuration)
        let expiresAt = self.expiresAt
        try store.registerKey(record(1))
        #expect(try store.consumeChallenge(Array("a".utf8), expiresAt: expiresAt))
        #expect(try store.consumeToken("jti", expiresAt: expiresAt))
        #expect(try store.consumeChallenge(Array("b".utf8), expiresAt: expiresAt, thenRegister: record(2)))
        #expect(try store.consumeChallenge(Array("c".utf8), expiresAt: expiresAt, thenAdvance: [1], to: 1, now: 1_001)
                == .counter(.advanced))
        for key in ["p:challenge:a", "p:token:jti", "p:challenge:b", "p:challenge:c"] {
            #expect(try server.cli(["EXPIRETIME", key]) == String(expiresAt + 90), "\(key)")
        }
    }

    @Test("a node whose clock runs 5 s behind Redis's can neither use one challenge twice nor one that expired by Redis's clock")
    func nodeBehindRedis() throws {
        let server = try RedisServer()
        let store = RedisStateStore(RedisConfiguration(port: server.port))
        try store.registerKey(record(1))
        let time = try server.cli(["TIME"]).split(whereSeparator: \.isNewline)
        let redisNow = try #require(time.first.flatMap { Int64($0) })
        let nodeNow = redisNow - 5
        // Expired 2 s ago for Redis; still valid for 3 s by the node's clock, which is why the node offers it.
        let expired = redisNow - 2
        #expect(expired > nodeNow)
        for _ in 0..<3 {
            #expect(try !store.consumeChallenge([1], expiresAt: expired))
            #expect(try !store.consumeToken("late", expiresAt: expired))
            #expect(try !store.consumeChallenge([2], expiresAt: expired, thenRegister: record(2)))
            #expect(try store.consumeChallenge([3], expiresAt: expired, thenAdvance: [1], to: 5, now: nodeNow) == .challengeReplayed)
        }
        #expect(try store.attestedKey([2]) == nil)
        #expect(try store.attestedKey([1])?.counter == 0)
        // Valid for both: used once; once Redis's clock has passed its expiry, the node, seconds short of it, replays it
        // in vain.
        // Read Redis's clock again: the loops above may have taken a while on a busy machine.
        let later = try server.cli(["TIME"]).split(whereSeparator: \.isNewline)
        let soon = try #require(later.first.flatMap { Int64($0) }) + 2
        #expect(try store.consumeChallenge([4], expiresAt: soon))
        #expect(try store.consumeToken("soon", expiresAt: soon))
        let wait = Double(soon) + 0.05 - Date().timeIntervalSince1970
        if wait > 0 { Thread.sleep(forTimeInterval: wait) }
        #expect(soon > nodeNow + 1)
        for _ in 0..<3 {
            #expect(try !store.consumeChallenge([4], expiresAt: soon))
            #expect(try !store.consumeToken("soon", expiresAt: soon))
        }
    }

    @Test("selects the configured database")
    func database() throws {
        let server = try RedisServer()
        let store = RedisStateStore(RedisConfiguration(port: server.port, database: 3, keyPrefix: "p:"))
        #expect(try store.consumeToken("jti", expiresAt: expiresAt))
        #expect(try server.cli(["-n", "3", "EXISTS", "p:token:jti"]) == "1")
        #expect(try server.cli(["EXISTS", "p:token:jti"]) == "0")
    }

    @Test("gives StoreError when Redis does not answer within the command timeout, then works again")
    func commandTimeout() throws {
        let server = try RedisServer()
        let store = RedisStateStore(RedisConfiguration(port: server.port, commandTimeoutMilliseconds: 200,
                                                       reconnectBackoffMilliseconds: 20, maxReconnectBackoffMilliseconds: 100))
        #expect(try store.consumeChallenge([1], expiresAt: expiresAt))
        #expect(try server.cli(["CLIENT", "PAUSE", "1500", "ALL"]) == "OK")
        #expect(throws: StoreError.self) { try store.consumeChallenge([2], expiresAt: expiresAt) }
        #expect(eventually(10) { try store.ping() } == nil)
        #expect(try !store.consumeChallenge([1], expiresAt: expiresAt))
    }

    @Test("serves more threads than it has connections, each waiting its turn")
    func smallPool() throws {
        let server = try RedisServer()
        let store = RedisStateStore(RedisConfiguration(port: server.port, poolSize: 2))
        let expiresAt = self.expiresAt
        let outcomes = onThreads(16) { index in
            Result { () throws(StoreError) in try store.consumeChallenge([UInt8(index)], expiresAt: expiresAt) }
        }
        #expect(outcomes.filter { (try? $0.get()) == true }.count == 16)
        // The pool's connections, plus redis-cli's own.
        let clients = try server.cli(["INFO", "clients"]).split(whereSeparator: \.isNewline)
            .first { $0.hasPrefix("connected_clients:") }.flatMap { Int($0.split(separator: ":")[1]) }
        #expect(try #require(clients) - 1 <= 2)
    }
}
