public import Basics
public import Batching

/// The state of one process, in memory: for tests and for a single node that may forget everything on restart.
/// A challenge or token at or past its expiry is refused (`ExpiryRule`); consumed ones are swept as new ones arrive
/// once their expiry plus the clock-skew allowance has passed (`ExpiringSet`), so memory stays bounded by the rate
/// times the TTL. Every table is split into shards (`Sharded`), so that no caller waits while another's table grows.
public final class MemoryStateStore: StateStore {
    let challenges = Sharded { ExpiringSet<[UInt8]>() }
    let tokens = Sharded { ExpiringSet<String>() }
    let keys = Sharded { KeyShard() }
    private let clock: TimeSource
    private let clockSkewSeconds: Int64

    /// - Parameters:
    ///   - clock: the time records are refused and swept by (injectable for tests).
    ///   - clockSkewSeconds: how long past its expiry a consumed record is kept.
    public init(clock: TimeSource = .system, clockSkewSeconds: Int64 = ExpiryRule.defaultClockSkewSeconds) {
        self.clock = clock
        self.clockSkewSeconds = clockSkewSeconds
    }

    /// A lock held for a few hash-table operations: nothing to wait for.
    public var answersWithoutWaiting: Bool { true }

    public func consumeChallenge(_ nonce: [UInt8], expiresAt: Int64) throws(StoreError) -> Bool {
        let now = clock.unixSeconds()
        guard ExpiryRule.isLive(expiresAt: expiresAt, now: now) else { return false }
        let keepUntil = ExpiryRule.keepUntil(expiresAt, clockSkewSeconds: clockSkewSeconds)
        return challenges.withLock(for: nonce) { $0.insert(nonce, keepUntil: keepUntil, now: now) }
    }

    /// Answered at once, on the calling thread.
    public func consumeToken(_ tokenID: String, expiresAt: Int64, joining batch: Batch?, completion: @escaping StoreCompletion<Bool>) {
        let now = clock.unixSeconds()
        guard ExpiryRule.isLive(expiresAt: expiresAt, now: now) else { return completion(.success(false), batch) }
        let keepUntil = ExpiryRule.keepUntil(expiresAt, clockSkewSeconds: clockSkewSeconds)
        completion(.success(tokens.withLock(for: tokenID) { $0.insert(tokenID, keepUntil: keepUntil, now: now) }), batch)
    }

    public func registerKey(_ record: AttestedKeyRecord) throws(StoreError) {
        keys.withLock(for: record.keyID) { shard in
            var merged = record
            if let existing = shard.records[record.keyID] {
                merged.counter = existing.counter
                merged.revoked = existing.revoked
                merged.firstSeen = existing.firstSeen
            }
            shard.records[record.keyID] = merged
        }
    }

    public func attestedKey(_ keyID: [UInt8]) throws(StoreError) -> AttestedKeyRecord? {
        keys.withLock(for: keyID) { $0.records[keyID] }
    }

    public func advanceCounter(keyID: [UInt8], to counter: UInt32, now: Int64) throws(StoreError) -> CounterAdvance {
        keys.withLock(for: keyID) { shard in
            guard var record = shard.records[keyID] else { return .unknownKey }
            guard !record.revoked else { return .revoked }
            guard counter > record.counter else { return .notIncreasing(stored: record.counter) }
            record.counter = counter
            record.lastSeen = now
            shard.records[keyID] = record
            return .advanced
        }
    }

    public func revokeKey(_ keyID: [UInt8], now: Int64) throws(StoreError) -> Bool {
        keys.withLock(for: keyID) { shard in
            guard var record = shard.records[keyID] else { return false }
            record.revoked = true
            record.lastSeen = now
            shard.records[keyID] = record
            return true
        }
    }
}

/// The attested keys whose ids fall in one shard, with their places in the receipt refresher's schedule.
struct KeyShard: Sendable {
    var records: [[UInt8]: AttestedKeyRecord] = [:]
    /// See `MemoryStateStore+Receipts.swift`.
    var receiptSchedule: [[UInt8]: ReceiptScheduleEntry] = [:]
}
