import Batching
import Foundation
import Storage
import Synchronization
import Testing

/// The contract of `StateStore`, checked against every implementation: memory, a SQLite file, a real Redis.
@Suite("State store semantics")
struct StateStoreSemanticsTests {
    static func record(_ id: [UInt8], at time: Int64) -> AttestedKeyRecord {
        AttestedKeyRecord(keyID: id, appID: "1:1:ios:a", environment: "production", publicKey: [4] + Array(repeating: 7, count: 64),
                          firstSeen: time, lastSeen: time, receipt: [0x30, 0x80, 0x00], riskMetric: 3)
    }

    @Test("consumes a challenge once, and never again, not even after it expired", arguments: StoreKind.allCases)
    func challenges(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, clockSkewSeconds: 1)
        let store = fixture.store
        let expiresAt = fixture.now + 2
        #expect(try store.consumeChallenge([1, 2, 3], expiresAt: expiresAt))
        #expect(try !store.consumeChallenge([1, 2, 3], expiresAt: expiresAt))
        #expect(try store.consumeChallenge([1, 2, 4], expiresAt: expiresAt))
        fixture.passExpiry(of: expiresAt + 1)
        #expect(try !store.consumeChallenge([1, 2, 3], expiresAt: expiresAt))
        #expect(try !store.consumeChallenge([1, 2, 3], expiresAt: expiresAt))
        #expect(try store.consumeChallenge([1, 2, 5], expiresAt: fixture.now + 300))
    }

    @Test("refuses a challenge consumed 1 ms after its expiry, every time, whether it was consumed before or not",
          arguments: StoreKind.allCases)
    func challengeAtExpiry(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let expiresAt = fixture.now + 1
        #expect(try store.consumeChallenge([7, 1], expiresAt: expiresAt))
        fixture.reach(expiresAt)
        for _ in 0..<3 {
            #expect(try !store.consumeChallenge([7, 1], expiresAt: expiresAt))
            #expect(try !store.consumeChallenge([7, 2], expiresAt: expiresAt))
        }
    }

    @Test("refuses a limited-use token consumed 1 ms after its expiry, every time, whether it was consumed before or not",
          arguments: StoreKind.allCases)
    func tokenAtExpiry(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let expiresAt = fixture.now + 1
        #expect(try store.consumeToken("jti-used", expiresAt: expiresAt))
        fixture.reach(expiresAt)
        for _ in 0..<3 {
            #expect(try !store.consumeToken("jti-used", expiresAt: expiresAt))
            #expect(try !store.consumeToken("jti-fresh", expiresAt: expiresAt))
        }
    }

    @Test("refuses a challenge at its expiry in the combined writes, and neither registers the key nor advances its counter",
          arguments: StoreKind.allCases)
    func combinedWritesAtExpiry(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let expiresAt = fixture.now + 1
        try store.registerKey(Self.record([3], at: fixture.now))
        fixture.reach(expiresAt)
        #expect(try !store.consumeChallenge([8, 1], expiresAt: expiresAt, thenRegister: Self.record([4], at: fixture.now)))
        #expect(try store.attestedKey([4]) == nil)
        #expect(try store.consumeChallenge([8, 2], expiresAt: expiresAt, thenAdvance: [3], to: 5, now: fixture.now) == .challengeReplayed)
        #expect(try store.attestedKey([3])?.counter == 0)
        let registered = Completions<Bool>()
        store.consumeChallenge([8, 3], expiresAt: expiresAt, thenRegister: Self.record([5], at: fixture.now), joining: nil, completion: registered.completion)
        #expect(try registered.wait().get() == false)
        #expect(try store.attestedKey([5]) == nil)
        let advanced = Completions<ChallengeThenCounter>()
        store.consumeChallenge([8, 4], expiresAt: expiresAt, thenAdvance: [3], to: 6, now: fixture.now, joining: nil, completion: advanced.completion)
        #expect(try advanced.wait().get() == .challengeReplayed)
        let token = Completions<Bool>()
        store.consumeToken("jti-late", expiresAt: expiresAt, joining: nil, completion: token.completion)
        #expect(try token.wait().get() == false)
        #expect(try store.attestedKey([3])?.counter == 0)
    }

    @Test("only the in-memory store says it may be called from an event loop", arguments: StoreKind.allCases)
    func answersWithoutWaiting(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        #expect(fixture.store.answersWithoutWaiting == (kind == .memory))
    }

    @Test("consumes a limited-use token once, and never again, not even after it expired", arguments: StoreKind.allCases)
    func tokens(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, clockSkewSeconds: 1)
        let store = fixture.store
        let expiresAt = fixture.now + 2
        #expect(try store.consumeToken("jti-1", expiresAt: expiresAt))
        #expect(try !store.consumeToken("jti-1", expiresAt: expiresAt))
        #expect(try store.consumeToken("jti-2", expiresAt: expiresAt))
        fixture.passExpiry(of: expiresAt + 1)
        #expect(try !store.consumeToken("jti-1", expiresAt: expiresAt))
        #expect(try store.consumeToken("jti-3", expiresAt: fixture.now + 300))
    }

    @Test("keeps nonces and key ids apart byte for byte, zero bytes included", arguments: StoreKind.allCases)
    func binaryIdentifiers(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let expiresAt = fixture.now + 300
        #expect(try store.consumeChallenge([0, 1], expiresAt: expiresAt))
        #expect(try store.consumeChallenge([0, 1, 0], expiresAt: expiresAt))
        #expect(try store.consumeChallenge([0xFF, 0], expiresAt: expiresAt))
        #expect(try !store.consumeChallenge([0, 1, 0], expiresAt: expiresAt))
        try store.registerKey(Self.record([0, 0], at: fixture.now))
        #expect(try store.attestedKey([0]) == nil)
        #expect(try store.attestedKey([0, 0])?.keyID == [0, 0])
    }

    @Test("stores every field of an attested key and reads it back", arguments: StoreKind.allCases)
    func roundTrip(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let full = Self.record([9, 9], at: 1_700_000_000)
        var bare = Self.record([8], at: 1_700_000_001)
        bare.receipt = nil
        bare.riskMetric = nil
        try store.registerKey(full)
        try store.registerKey(bare)
        #expect(try store.attestedKey([9, 9]) == full)
        #expect(try store.attestedKey([8]) == bare)
    }

    @Test("keeps extreme numbers, an empty receipt and every byte value intact", arguments: StoreKind.allCases)
    func extremes(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let allBytes = (0...255).map { UInt8($0) }
        let record = AttestedKeyRecord(
            keyID: allBytes, appID: "1:1:ios:ü\r\n$*", environment: "", publicKey: allBytes.reversed(),
            firstSeen: Int64.min + 1, lastSeen: Int64.max, counter: UInt32.max - 1, receipt: [],
            riskMetric: -1, revoked: false)
        try store.registerKey(record)
        #expect(try store.attestedKey(allBytes) == record)
        #expect(try store.advanceCounter(keyID: allBytes, to: UInt32.max, now: -7) == .advanced)
        #expect(try store.attestedKey(allBytes)?.counter == UInt32.max)
        #expect(try store.attestedKey(allBytes)?.lastSeen == -7)
    }

    @Test("advances a counter only upwards, and records when", arguments: StoreKind.allCases)
    func counters(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        try store.registerKey(Self.record([1], at: 1_000))
        #expect(try store.advanceCounter(keyID: [1], to: 1, now: 1_001) == .advanced)
        #expect(try store.advanceCounter(keyID: [1], to: 1, now: 1_002) == .notIncreasing(stored: 1))
        #expect(try store.advanceCounter(keyID: [1], to: 0, now: 1_002) == .notIncreasing(stored: 1))
        #expect(try store.advanceCounter(keyID: [1], to: 5, now: 1_003) == .advanced)
        #expect(try store.advanceCounter(keyID: [1], to: 4, now: 1_004) == .notIncreasing(stored: 5))
        #expect(try store.advanceCounter(keyID: [1], to: UInt32.max, now: 1_005) == .advanced)
        let stored = try #require(try store.attestedKey([1]))
        #expect(stored.counter == UInt32.max)
        #expect(stored.lastSeen == 1_005)
    }

    @Test("knows nothing of keys it never registered", arguments: StoreKind.allCases)
    func unknownKeys(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        #expect(try store.attestedKey([7]) == nil)
        #expect(try store.advanceCounter(keyID: [7], to: 1, now: 1_000) == .unknownKey)
        #expect(try !store.revokeKey([7], now: 1_000))
        #expect(try store.attestedKey([7]) == nil)
    }

    @Test("refuses to advance the counter of a revoked key", arguments: StoreKind.allCases)
    func revocation(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        try store.registerKey(Self.record([1], at: 1_000))
        #expect(try store.advanceCounter(keyID: [1], to: 2, now: 1_001) == .advanced)
        #expect(try store.revokeKey([1], now: 1_002))
        #expect(try store.advanceCounter(keyID: [1], to: 3, now: 1_003) == .revoked)
        let stored = try #require(try store.attestedKey([1]))
        #expect(stored.revoked)
        #expect(stored.counter == 2)
        #expect(stored.lastSeen == 1_002)
    }

    @Test("re-attesting a key keeps its counter, revocation and first sighting, and refreshes the rest",
          arguments: StoreKind.allCases)
    func reattest(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        try store.registerKey(Self.record([1], at: 1_000))
        #expect(try store.advanceCounter(keyID: [1], to: 3, now: 1_001) == .advanced)
        #expect(try store.revokeKey([1], now: 1_002))
        var again = Self.record([1], at: 2_000)
        again.receipt = [1, 2, 3, 4]
        again.riskMetric = nil
        again.environment = "development"
        try store.registerKey(again)
        let stored = try #require(try store.attestedKey([1]))
        #expect(stored.counter == 3)
        #expect(stored.revoked)
        #expect(stored.firstSeen == 1_000)
        #expect(stored.lastSeen == 2_000)
        #expect(stored.receipt == [1, 2, 3, 4])
        #expect(stored.riskMetric == nil)
        #expect(stored.environment == "development")
    }

    @Test("of 16 threads advancing a counter to the same value at once, exactly one wins", arguments: StoreKind.allCases)
    func counterRace(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        try store.registerKey(Self.record([1], at: 1_000))
        for round in UInt32(1)...5 {
            let outcomes = onThreads(16) { _ in Result { () throws(StoreError) in try store.advanceCounter(keyID: [1], to: round, now: 1_001) } }
            let advanced = outcomes.filter { (try? $0.get()) == .advanced }.count
            let refused = outcomes.filter { (try? $0.get()) == .notIncreasing(stored: round) }.count
            #expect(advanced == 1, "round \(round)")
            #expect(refused == 15, "round \(round)")
        }
    }

    @Test("of 16 threads consuming the same challenge at once, exactly one wins", arguments: StoreKind.allCases)
    func challengeRace(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let expiresAt = fixture.now + 300
        for round in UInt8(0)..<5 {
            let outcomes = onThreads(16) { _ in Result { () throws(StoreError) in try store.consumeChallenge([round], expiresAt: expiresAt) } }
            #expect(outcomes.filter { (try? $0.get()) == true }.count == 1, "round \(round)")
            #expect(outcomes.filter { (try? $0.get()) == false }.count == 15, "round \(round)")
        }
    }

    @Test("consumes a challenge then registers a key in one call, registering nothing for a replayed challenge",
          arguments: StoreKind.allCases)
    func consumeThenRegister(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let expiresAt = fixture.now + 300
        #expect(try store.consumeChallenge([9, 1], expiresAt: expiresAt, thenRegister: Self.record([7], at: fixture.now)))
        #expect(try store.attestedKey([7])?.counter == 0)
        #expect(try !store.consumeChallenge([9, 1], expiresAt: expiresAt, thenRegister: Self.record([8], at: fixture.now)))
        #expect(try store.attestedKey([8]) == nil)
    }

    @Test("consumes a challenge then advances a counter in one call, leaving the counter alone for a replayed challenge",
          arguments: StoreKind.allCases)
    func consumeThenAdvance(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let expiresAt = fixture.now + 300
        try store.registerKey(Self.record([7], at: fixture.now))
        #expect(try store.consumeChallenge([9, 2], expiresAt: expiresAt, thenAdvance: [7], to: 3, now: fixture.now) == .counter(.advanced))
        #expect(try store.consumeChallenge([9, 2], expiresAt: expiresAt, thenAdvance: [7], to: 4, now: fixture.now) == .challengeReplayed)
        #expect(try store.attestedKey([7])?.counter == 3)
        #expect(try store.consumeChallenge([9, 3], expiresAt: expiresAt, thenAdvance: [7], to: 3, now: fixture.now)
                == .counter(.notIncreasing(stored: 3)))
        #expect(try store.consumeChallenge([9, 4], expiresAt: expiresAt, thenAdvance: [6], to: 1, now: fixture.now)
                == .counter(.unknownKey))
        _ = try store.revokeKey([7], now: fixture.now)
        #expect(try store.consumeChallenge([9, 5], expiresAt: expiresAt, thenAdvance: [7], to: 9, now: fixture.now)
                == .counter(.revoked))
    }

    @Test("answers writes handed over with a completion once each, joining verifier-like threads' batches and flushed",
          arguments: StoreKind.allCases)
    func completions(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let expiresAt = fixture.now + 300
        // 8 threads × 20 keys, each key advanced once with a fresh challenge. Writes waiting for different batches
        // may be stored in another order than they were handed over (Redis has more than one pipeline in flight),
        // as concurrent requests may anyway, so each write here stands alone.
        @Sendable func key(_ thread: Int, _ index: Int) -> [UInt8] { [UInt8(thread), UInt8(index)] }
        for thread in 0..<8 { for index in 0..<20 { try store.registerKey(Self.record(key(thread, index), at: fixture.now)) } }
        let answers = (0..<8).map { _ in Answers() }
        // A write may be committed, and answered, by another thread's commit, after its own thread has moved on.
        func waitForAnswers(_ count: Int) {
            let deadline = Date().addingTimeInterval(10)
            while answers.contains(where: { $0.all.count < count }) && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        }
        _ = onThreads(8) { thread in
            let batch = Batch()
            for index in 0..<20 {
                store.consumeChallenge(key(thread, index), expiresAt: expiresAt, thenAdvance: key(thread, index), to: 1,
                                       now: fixture.now, joining: batch) { outcome, _ in answers[thread].append(outcome) }
                if index % 5 == 4 { batch.flush() }
            }
            batch.flush()
        }
        waitForAnswers(20)
        // Then each thread replays one of its challenges, with another key: refused, that key untouched.
        _ = onThreads(8) { thread in
            let batch = Batch()
            store.consumeChallenge(key(thread, 7), expiresAt: expiresAt, thenAdvance: key(thread, 8), to: 2,
                                   now: fixture.now, joining: batch) { outcome, _ in answers[thread].append(outcome) }
            batch.flush()
        }
        waitForAnswers(21)
        for (thread, answered) in answers.map(\.all).enumerated() {
            #expect(answered.count == 21, "thread \(thread)")
            #expect(answered.prefix(20).allSatisfy { (try? $0.get()) == .counter(.advanced) }, "thread \(thread)")
            #expect((try? answered.last?.get()) == .challengeReplayed, "thread \(thread)")
            #expect(try store.attestedKey(key(thread, 8))?.counter == 1)
        }
    }
}

/// What completions answered, in the order they ran.
final class Answers: Sendable {
    private let answered = Mutex<[Result<ChallengeThenCounter, StoreError>]>([])
    func append(_ answer: Result<ChallengeThenCounter, StoreError>) { answered.withLock { $0.append(answer) } }
    var all: [Result<ChallengeThenCounter, StoreError>] { answered.withLock { $0 } }
}

@Suite("State store: a key's risk metric alone")
struct RiskMetricReadTests {
    @Test("reads the risk metric a key was registered with, nil without one, and nil for an unknown key", arguments: StoreKind.allCases)
    func riskMetric(kind: StoreKind) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        try store.registerKey(StateStoreSemanticsTests.record([1], at: fixture.now))
        var bare = StateStoreSemanticsTests.record([2], at: fixture.now)
        bare.riskMetric = nil
        try store.registerKey(bare)
        var negative = StateStoreSemanticsTests.record([3], at: fixture.now)
        negative.riskMetric = -1
        try store.registerKey(negative)
        #expect(try store.riskMetric(of: [1]) == 3)
        #expect(try store.riskMetric(of: [2]) == nil)
        #expect(try store.riskMetric(of: [3]) == -1)
        #expect(try store.riskMetric(of: [9]) == nil)
        // It agrees with the whole record.
        #expect(try store.riskMetric(of: [1]) == store.attestedKey([1])?.riskMetric)
    }
}
