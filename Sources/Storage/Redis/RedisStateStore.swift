import Synchronization

/// The state store of a cluster: every node talks to the same Redis. Consuming a challenge or token is one
/// `SET key 1 NX EXAT expiresAt` (Redis drops it at expiry); each key is a hash, changed only by server-side
/// scripts so that compare-and-advance, registration and revocation are atomic across nodes. Scripts are run with
/// EVALSHA and loaded again when the server answers NOSCRIPT (after a restart or a failover).
///
/// How durable an answer is depends on the server: with `appendonly yes` and `appendfsync always` an acknowledged
/// consume survives a Redis crash; with the default `everysec` up to a second of them may be lost.
///
/// It speaks plain TCP, or TLS 1.2+ with the server's certificate and name verified (`RedisConfiguration.tls`).
public final class RedisStateStore: StateStore {
    private let pool: RedisConnectionPool
    private let prefix: String
    private let scriptHashes = Mutex<[String: String]>([:])

    /// Connects lazily: the first call opens the first connection, so attestd can start while Redis is down.
    public init(_ configuration: RedisConfiguration) {
        pool = RedisConnectionPool(configuration)
        prefix = configuration.keyPrefix
    }

    /// Checks that Redis answers (with the configured credentials).
    public func ping() throws(StoreError) {
        let reply = try pool.withConnection { connection throws(RedisFailure) in try connection.command(["PING"]) }
        guard reply.text == "PONG" else { throw StoreError("redis: unexpected answer to PING") }
    }

    public func consumeChallenge(_ nonce: [UInt8], expiresAt: Int64) throws(StoreError) -> Bool {
        try consumeOnce(key("challenge:", nonce), expiresAt: expiresAt)
    }

    public func consumeToken(_ tokenID: String, expiresAt: Int64) throws(StoreError) -> Bool {
        try consumeOnce(key("token:", Array(tokenID.utf8)), expiresAt: expiresAt)
    }

    public func registerKey(_ record: AttestedKeyRecord) throws(StoreError) {
        _ = try evaluate(.registerKey, keys: [key("key:", record.keyID), receiptScheduleKey], Self.registration(record))
    }

    /// One round trip: one script consumes the challenge and, only then, registers the key.
    public func consumeChallenge(_ nonce: [UInt8], expiresAt: Int64, thenRegister record: AttestedKeyRecord) throws(StoreError) -> Bool {
        let reply = try evaluate(
            .consumeThenRegister, keys: [key("challenge:", nonce), key("key:", record.keyID), receiptScheduleKey],
            [max(1, expiresAt)] + Self.registration(record))
        guard let registered = reply.integer else { throw unexpected(reply, "consume-register") }
        return registered == 1
    }

    /// One round trip: one script consumes the challenge and, only then, compares and advances the counter.
    public func consumeChallenge(
        _ nonce: [UInt8], expiresAt: Int64, thenAdvance keyID: [UInt8], to counter: UInt32, now: Int64
    ) throws(StoreError) -> ChallengeThenCounter {
        let reply = try evaluate(
            .consumeThenAdvance, keys: [key("challenge:", nonce), key("key:", keyID)], [max(1, expiresAt), Int64(counter), now])
        if case .array(let items) = reply, items.first?.integer == 4 { return .challengeReplayed }
        return .counter(try counterAdvance(reply, "consume-advance"))
    }

    private static func registration(_ record: AttestedKeyRecord) -> [any RedisArgument] {
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

    public func advanceCounter(keyID: [UInt8], to counter: UInt32, now: Int64) throws(StoreError) -> CounterAdvance {
        try counterAdvance(evaluate(.advanceCounter, keys: [key("key:", keyID)], [Int64(counter), now]), "advance")
    }

    /// The answer of the counter scripts: {0} advanced, {1, stored}, {2} revoked, {3} unknown key.
    private func counterAdvance(_ reply: RedisReply, _ command: String) throws(StoreError) -> CounterAdvance {
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

    private func consumeOnce(_ key: [UInt8], expiresAt: Int64) throws(StoreError) -> Bool {
        // EXAT must be positive; a record that expired long ago is dropped by Redis at once, as it should be.
        let reply = try pool.withConnection { connection throws(RedisFailure) in
            try connection.command(["SET", key, "1", "NX", "EXAT", max(1, expiresAt)])
        }
        switch reply {
        case .status: return true
        case .null: return false
        default: throw unexpected(reply, "SET")
        }
    }

    /// Runs a script by its hash; when the server does not know it (first use, restart, failover), loads it and
    /// runs it in one pipelined round trip.
    func evaluate(_ script: RedisScript, keys: [[UInt8]], _ arguments: [any RedisArgument]) throws(StoreError) -> RedisReply {
        let known = scriptHashes.withLock { $0[script.name] }
        let reply = try pool.withConnection { connection throws(RedisFailure) in
            if let known {
                let reply = try connection.command(["EVALSHA", known, keys.count] + keys + arguments)
                guard case .error(let message) = reply, message.hasPrefix("NOSCRIPT") else { return reply }
            }
            // SCRIPT LOAD answers the hash for next time; EVAL runs it now (the hash is not known before the reply).
            let replies = try connection.pipeline([
                ["SCRIPT", "LOAD", script.source],
                ["EVAL", script.source, keys.count] + keys + arguments,
            ])
            if let hash = replies[0].text { scriptHashes.withLock { $0[script.name] = hash } }
            return replies[1]
        }
        if case .error(let message) = reply { throw StoreError("redis: \(script.name) script failed: \(message)") }
        return reply
    }

    func unexpected(_ reply: RedisReply, _ command: String) -> StoreError {
        if case .error(let message) = reply { return StoreError("redis: \(command) failed: \(message)") }
        return StoreError("redis: unexpected answer to \(command): \(reply)")
    }
}
