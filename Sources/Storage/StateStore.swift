public import Batching

/// The state every node of a cluster must share (DESIGN.md, "State"). Each operation is atomic on its own, so two
/// nodes racing on the same challenge, counter or token get one winner.
///
/// The plain calls are synchronous and may block: they run on the verifier pool's threads, never on an event loop
/// (only a store whose `answersWithoutWaiting` is true may be called from one).
///
/// The writes of an exchange take a completion instead (`StoreCompletion`): the caller hands its write over and
/// goes on with other work, and the completion runs once the write is stored, on whichever thread stored it.
/// SQLite and Redis group such writes into one transaction or one pipeline (`GroupCommitter`, `ThreadedCommitter`),
/// so that a batch grows with the load and a verifier thread never sleeps on a commit; the default makes the
/// synchronous calls and then runs the completion, on the calling thread. A write handed over with the caller's
/// `Batch` may wait in the store's queue until that batch flushes, so that one commit takes a few jobs' writes.
public protocol StateStore: Sendable {
    /// Marks a challenge as used. Returns false when it was used before (a replay).
    /// - Parameter expiresAt: unix seconds after which the challenge is refused anyway, so the record may go.
    func consumeChallenge(_ nonce: [UInt8], expiresAt: Int64) throws(StoreError) -> Bool

    /// Records a newly attested key with counter 0. Attesting the same key again (the iOS SDK retries with the
    /// same key after a network failure) keeps its counter and revocation, and refreshes the rest.
    func registerKey(_ record: AttestedKeyRecord) throws(StoreError)

    /// The record of `keyID`, or nil when that key was never attested here.
    func attestedKey(_ keyID: [UInt8]) throws(StoreError) -> AttestedKeyRecord?

    /// The key's latest risk metric alone (nil: none yet, or an unknown key), for a token's `risk_metric` claim: a
    /// read on an assertion's path, so it leaves the receipt (about 4 KB) where it is. The default reads the record.
    func riskMetric(of keyID: [UInt8]) throws(StoreError) -> Int?

    /// Compare-and-advance: sets the key's counter to `counter` only if it is strictly greater than the stored
    /// one and the key is not revoked; also sets `lastSeen`. Exactly one of several concurrent callers with the same
    /// counter wins.
    func advanceCounter(keyID: [UInt8], to counter: UInt32, now: Int64) throws(StoreError) -> CounterAdvance

    /// Revokes a key: later assertions with it are refused. Returns false when the key is unknown.
    func revokeKey(_ keyID: [UInt8], now: Int64) throws(StoreError) -> Bool

    /// Marks a limited-use token (by its `jti`) as consumed: true the first time, false after.
    func consumeToken(_ tokenID: String, expiresAt: Int64, joining batch: Batch?, completion: @escaping StoreCompletion<Bool>)

    /// An attestation's two writes: consumes the challenge and, only when that succeeded, registers the key.
    /// False (and nothing registered) when the challenge was used before. A store that can do both in one round
    /// trip (one transaction) does; the default makes the two calls.
    func consumeChallenge(
        _ nonce: [UInt8], expiresAt: Int64, thenRegister record: AttestedKeyRecord, joining batch: Batch?,
        completion: @escaping StoreCompletion<Bool>)

    /// An assertion's two writes: consumes the challenge and, only when that succeeded, advances the key's
    /// counter. One round trip where the store can make it one; the default makes the two calls.
    func consumeChallenge(
        _ nonce: [UInt8], expiresAt: Int64, thenAdvance keyID: [UInt8], to counter: UInt32, now: Int64,
        joining batch: Batch?, completion: @escaping StoreCompletion<ChallengeThenCounter>)

    /// True when every call completes on the calling thread without waiting for I/O or another thread (the
    /// in-memory store). Only then may an exchange run on an event loop; SQLite may wait for another caller's commit
    /// and Redis for a round trip, which would stall every connection of that loop.
    var answersWithoutWaiting: Bool { get }
}

/// Receives the outcome of a write handed to the store; runs once, on the thread that stored the write, with that
/// thread's batch (nil: it has none), which the answer the completion sends joins.
public typealias StoreCompletion<Outcome> = @Sendable (Result<Outcome, StoreError>, Batch?) -> Void

/// The outcome of consuming a challenge and then advancing a counter.
public enum ChallengeThenCounter: Sendable, Equatable {
    /// The challenge was used before; the counter was not touched.
    case challengeReplayed
    /// The challenge was consumed; this is what the counter did.
    case counter(CounterAdvance)
}

extension StateStore {
    public var answersWithoutWaiting: Bool { false }

    public func riskMetric(of keyID: [UInt8]) throws(StoreError) -> Int? {
        try attestedKey(keyID)?.riskMetric
    }

    public func consumeChallenge(
        _ nonce: [UInt8], expiresAt: Int64, thenRegister record: AttestedKeyRecord, joining batch: Batch?,
        completion: @escaping StoreCompletion<Bool>
    ) {
        completion(Result { () throws(StoreError) in
            guard try consumeChallenge(nonce, expiresAt: expiresAt) else { return false }
            try registerKey(record)
            return true
        }, batch)
    }

    public func consumeChallenge(
        _ nonce: [UInt8], expiresAt: Int64, thenAdvance keyID: [UInt8], to counter: UInt32, now: Int64,
        joining batch: Batch?, completion: @escaping StoreCompletion<ChallengeThenCounter>
    ) {
        completion(Result { () throws(StoreError) in
            guard try consumeChallenge(nonce, expiresAt: expiresAt) else { return .challengeReplayed }
            return .counter(try advanceCounter(keyID: keyID, to: counter, now: now))
        }, batch)
    }
}

/// The outcome of `advanceCounter`.
public enum CounterAdvance: Sendable, Equatable {
    case advanced
    /// The stored counter is already at or past the offered one: a replay or a reordered request.
    case notIncreasing(stored: UInt32)
    case revoked
    case unknownKey
}

/// What attestd knows about an attested key.
public struct AttestedKeyRecord: Sendable, Equatable {
    public var keyID: [UInt8]
    public var appID: String
    public var environment: String
    /// The 65-byte uncompressed P-256 point.
    public var publicKey: [UInt8]
    public var firstSeen: Int64
    public var lastSeen: Int64
    public var counter: UInt32
    public var receipt: [UInt8]?
    public var riskMetric: Int?
    public var revoked: Bool

    public init(keyID: [UInt8], appID: String, environment: String, publicKey: [UInt8], firstSeen: Int64,
                lastSeen: Int64, counter: UInt32 = 0, receipt: [UInt8]? = nil, riskMetric: Int? = nil,
                revoked: Bool = false) {
        self.keyID = keyID
        self.appID = appID
        self.environment = environment
        self.publicKey = publicKey
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.counter = counter
        self.receipt = receipt
        self.riskMetric = riskMetric
        self.revoked = revoked
    }
}

/// The store could not answer (unreachable, timed out, corrupt). attestd fails closed: UNAVAILABLE.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = description }
}
