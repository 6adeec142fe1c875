import Basics
import Storage
import Synchronization
import Testing

@Suite("Memory state store")
struct MemoryStateStoreTests {
    final class Clock: Sendable {
        let now = Atomic<Int64>(1_000)
        func advance(_ seconds: Int64) { now.add(seconds, ordering: .relaxed) }
    }

    let clock = Clock()
    var store: MemoryStateStore { MemoryStateStore(clock: TimeSource(unixSeconds: { [clock] in clock.now.load(ordering: .relaxed) })) }

    func record(_ id: UInt8) -> AttestedKeyRecord {
        AttestedKeyRecord(keyID: [id], appID: "1:1:ios:a", environment: "development", publicKey: [4], firstSeen: 1_000, lastSeen: 1_000)
    }

    @Test("consumes a challenge once, and forgets it only after its expiry and the clock-skew allowance have passed")
    func challenges() throws {
        let store = store
        #expect(try store.consumeChallenge([1], expiresAt: 1_300))
        #expect(try !store.consumeChallenge([1], expiresAt: 1_300))
        clock.advance(299)
        #expect(try !store.consumeChallenge([1], expiresAt: 1_300))
        // Past its expiry, within the allowance: still known, even to a caller that offers a later expiry.
        clock.advance(2)
        #expect(try !store.consumeChallenge([1], expiresAt: 1_600))
        clock.advance(60)
        _ = try store.consumeChallenge([2], expiresAt: 1_600)  // triggers a sweep
        #expect(try store.consumeChallenge([1], expiresAt: 1_600))
    }

    @Test("keeps a consumed challenge for the configured clock-skew allowance past its expiry")
    func configuredAllowance() throws {
        let clock = self.clock
        let store = MemoryStateStore(clock: TimeSource(unixSeconds: { clock.now.load(ordering: .relaxed) }), clockSkewSeconds: 5)
        #expect(try store.consumeChallenge([1], expiresAt: 1_010))
        clock.advance(15)
        #expect(try !store.consumeChallenge([1], expiresAt: 1_600))
        clock.advance(1)
        #expect(try store.consumeChallenge([1], expiresAt: 1_600))
    }

    @Test("advances a counter only upwards, and never for a revoked or unknown key")
    func counters() throws {
        let store = store
        try store.registerKey(record(1))
        #expect(try store.advanceCounter(keyID: [1], to: 1, now: 1_001) == .advanced)
        #expect(try store.advanceCounter(keyID: [1], to: 1, now: 1_002) == .notIncreasing(stored: 1))
        #expect(try store.advanceCounter(keyID: [1], to: 0, now: 1_002) == .notIncreasing(stored: 1))
        #expect(try store.advanceCounter(keyID: [1], to: 5, now: 1_003) == .advanced)
        #expect(try store.attestedKey([1])?.counter == 5)
        #expect(try store.attestedKey([1])?.lastSeen == 1_003)
        #expect(try store.advanceCounter(keyID: [9], to: 1, now: 1_003) == .unknownKey)
        #expect(try store.revokeKey([1], now: 1_004))
        #expect(try !store.revokeKey([9], now: 1_004))
        #expect(try store.advanceCounter(keyID: [1], to: 6, now: 1_005) == .revoked)
    }

    @Test("re-attesting a key keeps its counter, revocation and first-seen time")
    func reattest() throws {
        let store = store
        try store.registerKey(record(1))
        _ = try store.advanceCounter(keyID: [1], to: 3, now: 1_001)
        var again = record(1)
        again.firstSeen = 2_000
        again.lastSeen = 2_000
        try store.registerKey(again)
        let stored = try #require(try store.attestedKey([1]))
        #expect(stored.counter == 3)
        #expect(stored.firstSeen == 1_000)
        #expect(stored.lastSeen == 2_000)
    }

    @Test("of 16 concurrent advances to the same counter, exactly one wins")
    func race() async throws {
        let store = store
        try store.registerKey(record(1))
        let wins = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<16 { group.addTask { (try? store.advanceCounter(keyID: [1], to: 7, now: 1_001)) == .advanced } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(wins == 1)
    }

    @Test("consumes a limited-use token once")
    func tokens() throws {
        let store = store
        #expect(try store.consumeToken("jti-1", expiresAt: 1_300))
        #expect(try !store.consumeToken("jti-1", expiresAt: 1_300))
        #expect(try store.consumeToken("jti-2", expiresAt: 1_300))
    }

    @Test("consumes each of 5,000 challenges once across the shards, and forgets every one once expired and past the allowance")
    func manyChallenges() throws {
        let store = store
        let nonces = (0..<5_000).map { (index: Int) -> [UInt8] in withUnsafeBytes(of: index) { Array($0) } }
        for nonce in nonces { #expect(try store.consumeChallenge(nonce, expiresAt: 1_010)) }
        #expect(try nonces.allSatisfy { try !store.consumeChallenge($0, expiresAt: 1_010) })
        clock.advance(71)
        #expect(try nonces.allSatisfy { try store.consumeChallenge($0, expiresAt: 1_100) })
    }
}
