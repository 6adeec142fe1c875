import Synchronization

/// The state of one process, in memory: for tests and for a single node that may forget everything on restart.
/// Expired challenges and tokens are swept as new ones arrive, so memory stays bounded by the rate times the TTL;
/// they are filed by the second they expire, so a sweep touches only what has expired.
public final class MemoryStateStore: StateStore {
    struct State {
        var challenges: Set<[UInt8]> = []
        var tokens: Set<String> = []
        var keys: [[UInt8]: AttestedKeyRecord] = [:]
        var challengesExpiring: [Int64: [[UInt8]]] = [:]
        var tokensExpiring: [Int64: [String]] = [:]
        var sweptThrough: Int64?
        /// The receipt refresher's schedule (see `MemoryStateStore+Receipts.swift`).
        var receiptSchedule: [[UInt8]: ReceiptScheduleEntry] = [:]
    }

    let state = Mutex(State())
    private let clock: @Sendable () -> Int64

    /// - Parameter clock: unix seconds now, for sweeping expired records (injectable for tests).
    public init(clock: @escaping @Sendable () -> Int64) {
        self.clock = clock
    }

    public func consumeChallenge(_ nonce: [UInt8], expiresAt: Int64) throws(StoreError) -> Bool {
        state.withLock { state in
            sweep(&state)
            guard state.challenges.insert(nonce).inserted else { return false }
            state.challengesExpiring[expiresAt, default: []].append(nonce)
            return true
        }
    }

    public func registerKey(_ record: AttestedKeyRecord) throws(StoreError) {
        state.withLock { state in
            var merged = record
            if let existing = state.keys[record.keyID] {
                merged.counter = existing.counter
                merged.revoked = existing.revoked
                merged.firstSeen = existing.firstSeen
            }
            state.keys[record.keyID] = merged
        }
    }

    public func attestedKey(_ keyID: [UInt8]) throws(StoreError) -> AttestedKeyRecord? {
        state.withLock { $0.keys[keyID] }
    }

    public func advanceCounter(keyID: [UInt8], to counter: UInt32, now: Int64) throws(StoreError) -> CounterAdvance {
        state.withLock { state in
            guard var record = state.keys[keyID] else { return .unknownKey }
            guard !record.revoked else { return .revoked }
            guard counter > record.counter else { return .notIncreasing(stored: record.counter) }
            record.counter = counter
            record.lastSeen = now
            state.keys[keyID] = record
            return .advanced
        }
    }

    public func consumeToken(_ tokenID: String, expiresAt: Int64) throws(StoreError) -> Bool {
        state.withLock { state in
            sweep(&state)
            guard state.tokens.insert(tokenID).inserted else { return false }
            state.tokensExpiring[expiresAt, default: []].append(tokenID)
            return true
        }
    }

    public func revokeKey(_ keyID: [UInt8], now: Int64) throws(StoreError) -> Bool {
        state.withLock { state in
            guard state.keys[keyID] != nil else { return false }
            state.keys[keyID]!.revoked = true
            state.keys[keyID]!.lastSeen = now
            return true
        }
    }

    /// Drops the challenges and tokens whose expiry second has passed since the last sweep.
    private func sweep(_ state: inout State) {
        let now = clock()
        let from = state.sweptThrough.map { $0 + 1 } ?? Swift.min(
            state.challengesExpiring.keys.min() ?? now, state.tokensExpiring.keys.min() ?? now)
        guard from < now else { return }
        // After a long idle gap, walking every second would be slow; walking the buckets is bounded by their count.
        let seconds: [Int64] = now - from > 4_096
            ? Set(state.challengesExpiring.keys).union(state.tokensExpiring.keys).filter { $0 < now }.sorted()
            : Array(from..<now)
        for second in seconds {
            for nonce in state.challengesExpiring.removeValue(forKey: second) ?? [] { state.challenges.remove(nonce) }
            for token in state.tokensExpiring.removeValue(forKey: second) ?? [] { state.tokens.remove(token) }
        }
        state.sweptThrough = now - 1
    }
}
