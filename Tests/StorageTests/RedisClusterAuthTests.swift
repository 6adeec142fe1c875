import Foundation
@testable import Storage
import Testing

/// AUTH on a real Redis Cluster whose every node requires a password: the store authenticates every connection it
/// opens, to the seeds, to each primary, and to the node a redirection names; a wrong or missing password is
/// reported as refused authentication, and nothing is written.
@Suite("Redis Cluster store with AUTH", .serialized)
struct RedisClusterAuthTests {
    static let password = "cluster-s3cret"
    var expiresAt: Int64 { Int64(Date().timeIntervalSince1970) + 300 }

    static func store(_ servers: RedisClusterServers, username: String? = nil, password: String?) -> RedisClusterStateStore {
        RedisClusterStateStore(RedisClusterConfiguration(
            seeds: servers.seeds,
            connection: RedisConfiguration(username: username, password: password, reconnectBackoffMilliseconds: 1,
                                           maxReconnectBackoffMilliseconds: 1),
            replicasToAcknowledge: 0))
    }

    static func nonce(_ value: Int) -> [UInt8] { Array("nonce-\(value)".utf8) }
    static func keyID(_ value: Int) -> [UInt8] { [0xA0, UInt8(value & 0xFF), UInt8(value >> 8)] }

    @Test("with the right password, consumes each challenge once and refuses its replay, on every primary")
    func rightPassword() throws {
        let servers = try RedisClusterServers(primaries: 3, replicasPerPrimary: 0, password: Self.password)
        let store = Self.store(servers, password: Self.password)
        let nonces = try servers.onEveryPrimary { Array("attestd:challenge:".utf8) + Self.nonce($0) }
        for value in nonces { #expect(try store.consumeChallenge(Self.nonce(value), expiresAt: expiresAt)) }
        for value in nonces { #expect(try !store.consumeChallenge(Self.nonce(value), expiresAt: expiresAt), "replay \(value)") }
        let keys = try servers.onEveryPrimary { store.recordKey(Self.keyID($0)) }
        for value in keys {
            try store.registerKey(RedisClusterTests.record(Self.keyID(value)))
            #expect(try store.advanceCounter(keyID: Self.keyID(value), to: 2, now: 1_001) == .advanced)
            #expect(try store.advanceCounter(keyID: Self.keyID(value), to: 2, now: 1_002) == .notIncreasing(stored: 2))
        }
        try store.ping()
        // AUTH with an ACL user name (`AUTH default password`) reaches the same records.
        let named = Self.store(servers, username: "default", password: Self.password)
        for value in nonces { #expect(try !named.consumeChallenge(Self.nonce(value), expiresAt: expiresAt)) }
    }

    @Test("with a wrong password or none, fails with an error naming authentication and writes nothing")
    func wrongPassword() throws {
        let servers = try RedisClusterServers(primaries: 3, replicasPerPrimary: 0, password: Self.password)
        let nonces = try servers.onEveryPrimary { Array("attestd:challenge:".utf8) + Self.nonce($0) }
        for (password, refusal) in [("wrong", "WRONGPASS"), (nil, "NOAUTH")] as [(String?, String)] {
            let store = Self.store(servers, password: password)
            for value in nonces {
                let error = #expect(throws: StoreError.self) { try store.consumeChallenge(Self.nonce(value), expiresAt: expiresAt) }
                let message = error?.description ?? ""
                #expect(message.lowercased().contains("authentication") && message.contains(refusal), "\(message)")
            }
            let registering = #expect(throws: StoreError.self) { try store.registerKey(RedisClusterTests.record(Self.keyID(1))) }
            #expect(registering?.description.contains(refusal) == true, "\(String(describing: registering))")
            let pinging = #expect(throws: StoreError.self) { try store.ping() }
            #expect(pinging?.description.lowercased().contains("authentication") == true, "\(String(describing: pinging))")
        }
        for node in servers.nodes { #expect(try node.cli(["DBSIZE"]) == "0", "node \(node.port)") }
        // Nothing was burnt: the right password consumes the same challenges for the first time.
        let store = Self.store(servers, password: Self.password)
        for value in nonces { #expect(try store.consumeChallenge(Self.nonce(value), expiresAt: expiresAt)) }
    }

    @Test("authenticates to the node an ASK or MOVED names, on connections opened after the redirection")
    func redirections() throws {
        let servers = try RedisClusterServers(primaries: 3, replicasPerPrimary: 0, password: Self.password)
        let store = Self.store(servers, password: Self.password)
        try RedisClusterRedirections.check(store, on: servers, migrateOptions: ["AUTH", Self.password])
    }
}
