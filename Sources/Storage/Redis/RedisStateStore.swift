public import Batching

/// The state store of a cluster: every node talks to the same Redis. Consuming a challenge or token is one script
/// (`RedisScript.consume`) that refuses it at or past its expiry by the server's clock, else sets it with
/// `NX EXAT` its expiry plus the clock-skew allowance (Redis drops it then); each key is a hash, changed only by server-side
/// scripts so that compare-and-advance, registration and revocation are atomic across nodes. Scripts are run with
/// EVALSHA and loaded again when the server answers NOSCRIPT (after a restart or a failover). Writes are pipelined by
/// the store's own I/O threads: those queued while one pipeline is on the wire go out together in the next
/// (`RedisBatcher`), and a write handed over with a completion is answered on an I/O thread.
///
/// How durable an answer is depends on the server: with `appendonly yes` and `appendfsync always` an acknowledged
/// consume survives a Redis crash; with the default `everysec` up to a second of them may be lost.
///
/// It speaks plain TCP, or TLS 1.2+ with the server's certificate and name verified (`RedisConfiguration.tls`).
public final class RedisStateStore: StateStore {
    let pool: RedisConnectionPool
    private let batcher: RedisBatcher
    private let prefix: String
    private let clockSkewSeconds: Int64
    /// Commands per pipeline at most: enough to share a round trip widely, few enough that one reply of a batch
    /// never waits for thousands of others.
    static let maxPipeline = 256
    /// Pipelines in flight at most: one per I/O thread, each on its own connection of the pool. Two, so that a
    /// batch need not wait for the other's round trip (nor for the other's completions to run).
    static let maxPipelinesInFlight = 2

    /// Connects lazily: the first call opens the first connection, so attestd can start while Redis is down.
    /// Starts the store's I/O threads (`redis-io-0`, …), which run the completions of writes, each with a batch of
    /// its own that holds the wake-ups of the answers they post, flushed after each pipeline.
    public init(_ configuration: RedisConfiguration) {
        pool = RedisConnectionPool(configuration)
        batcher = RedisBatcher(pool: pool, maxBatchSize: Self.maxPipeline,
                               maxPipelinesInFlight: max(1, min(configuration.poolSize, Self.maxPipelinesInFlight)),
                               commandTimeout: .milliseconds(configuration.commandTimeoutMilliseconds),
                               orderedKeyPrefix: Array((configuration.keyPrefix + "key:").utf8))
        prefix = configuration.keyPrefix
        clockSkewSeconds = configuration.clockSkewSeconds
    }

    /// Refuses new writes (each is answered with a `StoreError`), answers every write already queued (stored, or a
    /// `StoreError`), and stops the I/O threads. Also done when the store is released.
    public func close() {
        batcher.stop()
    }

    /// Checks that Redis answers (with the configured credentials).
    public func ping() throws(StoreError) {
        let reply = try pool.withConnection { connection throws(RedisFailure) in try connection.command(["PING"]) }
        guard reply.text == "PONG" else { throw StoreError("redis: unexpected answer to PING") }
    }

    public func consumeChallenge(_ nonce: [UInt8], expiresAt: Int64) throws(StoreError) -> Bool {
        try Self.consumed(batcher.submit(consumeOnce(key("challenge:", nonce), expiresAt: expiresAt)))
    }

    public func registerKey(_ record: AttestedKeyRecord) throws(StoreError) {
        _ = try evaluate(.registerKey, keys: [key("key:", record.keyID), receiptScheduleKey], Self.registration(record))
    }

    /// One round trip: one script consumes the challenge and, only then, registers the key.
    public func consumeChallenge(
        _ nonce: [UInt8], expiresAt: Int64, thenRegister record: AttestedKeyRecord, joining batch: Batch?,
        completion: @escaping StoreCompletion<Bool>
    ) {
        batcher.submit(consumeThenRegister(nonce, expiresAt, record), joining: batch,
                       completion: decoding(completion) { reply throws(StoreError) in try Self.registered(reply) })
    }

    /// One round trip: one script consumes the challenge and, only then, compares and advances the counter.
    public func consumeChallenge(
        _ nonce: [UInt8], expiresAt: Int64, thenAdvance keyID: [UInt8], to counter: UInt32, now: Int64,
        joining batch: Batch?, completion: @escaping StoreCompletion<ChallengeThenCounter>
    ) {
        batcher.submit(consumeThenAdvance(nonce, expiresAt, keyID, counter, now), joining: batch,
                       completion: decoding(completion) { reply throws(StoreError) in try Self.challengeThenCounter(reply) })
    }

    public func consumeToken(_ tokenID: String, expiresAt: Int64, joining batch: Batch?, completion: @escaping StoreCompletion<Bool>) {
        batcher.submit(consumeOnce(key("token:", Array(tokenID.utf8)), expiresAt: expiresAt), joining: batch,
                       completion: decoding(completion) { reply throws(StoreError) in try Self.consumed(reply) })
    }

    private func consumeThenRegister(_ nonce: [UInt8], _ expiresAt: Int64, _ record: AttestedKeyRecord) -> RedisCall {
        .script(.consumeThenRegister, keys: [key("challenge:", nonce), key("key:", record.keyID), receiptScheduleKey],
                arguments: expiry(expiresAt) + Self.registration(record))
    }

    private func consumeThenAdvance(_ nonce: [UInt8], _ expiresAt: Int64, _ keyID: [UInt8], _ counter: UInt32, _ now: Int64) -> RedisCall {
        .script(.consumeThenAdvance, keys: [key("challenge:", nonce), key("key:", keyID)],
                arguments: expiry(expiresAt) + [Int64(counter), now])
    }

    static func registered(_ reply: RedisReply) throws(StoreError) -> Bool {
        guard let registered = reply.integer else { throw unexpected(reply, "consume-register") }
        return registered == 1
    }

    static func challengeThenCounter(_ reply: RedisReply) throws(StoreError) -> ChallengeThenCounter {
        if case .array(let items) = reply, items.first?.integer == 4 { return .challengeReplayed }
        return .counter(try Self.counterAdvance(reply, "consume-advance"))
    }

    static func registration(_ record: AttestedKeyRecord) -> [any RedisArgument] {
        [
            record.appID, record.environment, record.publicKey, record.firstSeen, record.lastSeen,
            Int64(record.counter), record.revoked ? "1" : "0",
            record.receipt == nil ? "0" : "1", record.receipt ?? [],
            record.riskMetric == nil ? "0" : "1", record.riskMetric ?? 0,
        ]
    }

    public func attestedKey(_ keyID: [UInt8]) throws(StoreError) -> AttestedKeyRecord? {
        let reply = try pool.withConnection { connection throws(RedisFailure) in
            try connection.command(["HGETALL", key("key:", keyID)])
        }
        return try Self.record(keyID, from: reply)
    }

    /// The record an `HGETALL` of a key's hash answered; nil for an unknown key.
    static func record(_ keyID: [UInt8], from reply: RedisReply) throws(StoreError) -> AttestedKeyRecord? {
        guard case .array(let items) = reply else { throw unexpected(reply, "HGETALL") }
        guard !items.isEmpty else { return nil }
        var fields: [String: [UInt8]] = [:]
        for index in stride(from: 0, to: items.count - 1, by: 2) {
            guard let name = items[index].text, case .string(let value) = items[index + 1] else { continue }
            fields[name] = value
        }
        func text(_ name: String) -> String? { fields[name].map { String(decoding: $0, as: UTF8.self) } }
        func integer(_ name: String) -> Int64? { text(name).flatMap { Int64($0) } }
        guard let appID = text("app"), let environment = text("env"), let publicKey = fields["public_key"],
              let firstSeen = integer("first_seen"), let lastSeen = integer("last_seen"),
              let counter = integer("counter"), let revoked = text("revoked") else {
            throw StoreError("redis: incomplete key record")
        }
        return AttestedKeyRecord(
            keyID: keyID, appID: appID, environment: environment, publicKey: publicKey, firstSeen: firstSeen,
            lastSeen: lastSeen, counter: UInt32(clamping: counter), receipt: fields["receipt"],
            riskMetric: integer("risk").map { Int($0) }, revoked: revoked == "1")
    }

    /// `HGET key risk`: the one field, not the receipt beside it.
    public func riskMetric(of keyID: [UInt8]) throws(StoreError) -> Int? {
        let reply = try pool.withConnection { connection throws(RedisFailure) in
            try connection.command(["HGET", key("key:", keyID), "risk"])
        }
        return try Self.riskMetric(from: reply)
    }

    /// The risk metric an `HGET key risk` answered.
    static func riskMetric(from reply: RedisReply) throws(StoreError) -> Int? {
        switch reply {
        case .null: return nil
        case .string(let value):
            guard let metric = Int(String(decoding: value, as: UTF8.self)) else { throw unexpected(reply, "HGET") }
            return metric
        default: throw unexpected(reply, "HGET")
        }
    }

    public func advanceCounter(keyID: [UInt8], to counter: UInt32, now: Int64) throws(StoreError) -> CounterAdvance {
        try Self.counterAdvance(evaluate(.advanceCounter, keys: [key("key:", keyID)], [Int64(counter), now]), "advance")
    }

    /// The answer of the counter scripts: {0} advanced, {1, stored}, {2} revoked, {3} unknown key.
    static func counterAdvance(_ reply: RedisReply, _ command: String) throws(StoreError) -> CounterAdvance {
        guard case .array(let items) = reply, let outcome = items.first?.integer else {
            throw unexpected(reply, command)
        }
        switch outcome {
        case 0: return .advanced
        case 1: return .notIncreasing(stored: UInt32(clamping: items.count > 1 ? items[1].integer ?? 0 : 0))
        case 2: return .revoked
        case 3: return .unknownKey
        default: throw unexpected(reply, command)
        }
    }

    public func revokeKey(_ keyID: [UInt8], now: Int64) throws(StoreError) -> Bool {
        let reply = try evaluate(.revokeKey, keys: [key("key:", keyID)], [now])
        guard let revoked = reply.integer else { throw unexpected(reply, "revoke") }
        return revoked == 1
    }

    func key(_ kind: String, _ id: [UInt8]) -> [UInt8] {
        Array(prefix.utf8) + Array(kind.utf8) + id
    }

    private func consumeOnce(_ key: [UInt8], expiresAt: Int64) -> RedisCall {
        Self.consumeOnce(key, expiresAt: expiresAt, clockSkewSeconds: clockSkewSeconds)
    }

    /// `RedisScript.consume` of a challenge or token: 1 the first time, 0 after or once expired. The cluster store
    /// sends the same call.
    static func consumeOnce(_ key: [UInt8], expiresAt: Int64, clockSkewSeconds: Int64) -> RedisCall {
        .script(.consume, keys: [key], arguments: expiry(expiresAt, clockSkewSeconds: clockSkewSeconds))
    }

    private func expiry(_ expiresAt: Int64) -> [any RedisArgument] {
        Self.expiry(expiresAt, clockSkewSeconds: clockSkewSeconds)
    }

    /// The scripts' first two arguments: the expiry, and the second until which a consumed record is kept. EXAT
    /// must be positive; a record kept until a second already past is refused by the script before it is set.
    private static func expiry(_ expiresAt: Int64, clockSkewSeconds: Int64) -> [any RedisArgument] {
        [expiresAt, max(1, ExpiryRule.keepUntil(expiresAt, clockSkewSeconds: clockSkewSeconds))]
    }

    static func consumed(_ reply: RedisReply) throws(StoreError) -> Bool {
        guard let consumed = reply.integer else { throw unexpected(reply, "consume") }
        return consumed == 1
    }

    /// Runs a script (in the next pipeline) and waits for its reply; an error reply is a `StoreError`.
    func evaluate(_ script: RedisScript, keys: [[UInt8]], _ arguments: [any RedisArgument]) throws(StoreError) -> RedisReply {
        try batcher.submit(.script(script, keys: keys, arguments: arguments))
    }

    func unexpected(_ reply: RedisReply, _ command: String) -> StoreError {
        Self.unexpected(reply, command)
    }

    static func unexpected(_ reply: RedisReply, _ command: String) -> StoreError {
        if case .error(let message) = reply { return StoreError("redis: \(command) failed: \(message)") }
        return StoreError("redis: unexpected answer to \(command): \(reply)")
    }
}
