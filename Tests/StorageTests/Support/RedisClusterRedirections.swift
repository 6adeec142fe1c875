@testable import Storage
import Testing

/// Moves one key's slot to a node the store has not yet spoken to (not its first seed, not the slot's primary), as
/// `redis-cli --cluster reshard` would, and checks that the store follows ASK while the slot migrates and MOVED once
/// it has moved: the calls succeed on the new node through connections the store opens after the redirection.
enum RedisClusterRedirections {
    /// - Parameter migrateOptions: what MIGRATE needs to reach the target (`AUTH password`).
    static func check(_ store: RedisClusterStateStore, on servers: RedisClusterServers, migrateOptions: [String] = []) throws {
        // A key whose primary is not the first seed, which the store asks for the slot map.
        let value = try #require((0..<1_000).first { value in
            (try? servers.primary(of: RedisKeySlot.of(store.recordKey([0xB0, UInt8(value)]))).node.port) != servers.seeds[0].port
        })
        let id: [UInt8] = [0xB0, UInt8(value)]
        try store.registerKey(RedisClusterTests.record(id))
        #expect(try store.advanceCounter(keyID: id, to: 1, now: 1_001) == .advanced)
        let name = String(decoding: store.recordKey(id), as: UTF8.self)
        let slot = RedisKeySlot.of(store.recordKey(id))
        let source = try servers.primary(of: slot)
        let target = try #require(servers.nodes.first { $0.port != source.node.port && $0.port != servers.seeds[0].port })
        let targetID = try servers.id(of: target)
        #expect(try target.cli(["CLUSTER", "SETSLOT", String(slot), "IMPORTING", source.id]) == "OK")
        #expect(try source.node.cli(["CLUSTER", "SETSLOT", String(slot), "MIGRATING", targetID]) == "OK")
        #expect(try source.node.cli(["MIGRATE", "127.0.0.1", String(target.port), "", "0", "5000"] + migrateOptions
            + ["KEYS", name]) == "OK")
        // The source answers ASK: the store opens its first connection to the target, and must authenticate on it.
        #expect(try store.attestedKey(id)?.counter == 1)
        #expect(try store.advanceCounter(keyID: id, to: 2, now: 1_002) == .advanced)
        for node in servers.nodes {
            #expect(try node.cli(["CLUSTER", "SETSLOT", String(slot), "NODE", targetID]) == "OK")
        }
        // The store's map still names the source, which answers MOVED.
        #expect(try store.advanceCounter(keyID: id, to: 3, now: 1_003) == .advanced)
        #expect(try store.advanceCounter(keyID: id, to: 3, now: 1_004) == .notIncreasing(stored: 3))
        #expect(try target.cli(["HGET", name, "counter"]) == "3")
        #expect(try source.node.cli(["EXISTS", name]).hasPrefix("MOVED \(slot) "), "the source no longer serves the slot")
    }
}
