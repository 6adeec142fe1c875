public import Batching

/// The state store on a Redis Cluster: the same records and scripts as `RedisStateStore`, each script touching keys
/// of one slot. An attested key's hash is named with its id as a hash tag (`<prefix>key:{<hex id>}`), so anything
/// kept per key shares its slot; challenges and tokens hash on their own.
///
/// A challenge and a key lie in different slots, so the combined writes take two steps: the challenge is consumed
/// (in its slot), then, only if that succeeded, the key is registered or its counter advanced (in the key's slot).
/// A second step that fails leaves the challenge consumed: the exchange fails (UNAVAILABLE) and the client asks for
/// a new challenge; it never gets a second use of the old one. Both steps of one key's exchanges keep the order in
/// which they were handed over (they share the key's I/O thread).
///
/// Each pipeline of writes to a primary ends with WAIT (`RedisClusterConfiguration.replicasToAcknowledge`): a write
/// is answered only once a replica has it, so a primary killed after answering loses no consumed challenge and no
/// counter when its replica takes over; without the acknowledgement in time the write fails (closed).
///
/// The receipt refresh schedule is one sorted set that names every key, which a cluster cannot update together with
/// a key: this store keeps no schedule (it is not a `ReceiptRefreshStore`), so receipts are not refreshed on a cluster.
public final class RedisClusterStateStore: StateStore {
    let cluster: RedisCluster
    private let batcher: RedisBatcher
    private let prefix: String
    private let clockSkewSeconds: Int64

    /// Reads the slot map at the first call, so attestd can start while the cluster is down. Starts the store's I/O
    /// threads (`redis-io-0`, …), as `RedisStateStore` does.
    public init(_ configuration: RedisClusterConfiguration) {
        let cluster = RedisCluster(configuration)
        self.cluster = cluster
        let connection = configuration.connection
        batcher = RedisBatcher(
            maxBatchSize: RedisStateStore.maxPipeline,
            maxPipelinesInFlight: max(1, min(connection.poolSize, RedisStateStore.maxPipelinesInFlight)),
            commandTimeout: .milliseconds(connection.commandTimeoutMilliseconds),
            orderedKeyPrefix: Array((connection.keyPrefix + "key:").utf8)
        ) { calls in
            cluster.execute(calls)
        }
        prefix = connection.keyPrefix
        clockSkewSeconds = connection.clockSkewSeconds
    }

    /// Refuses new writes, answers those queued, and stops the I/O threads. Also done when the store is released.
    public func close() {
        batcher.stop()
    }

    /// Checks that every slot has a primary and that each primary answers (with the configured credentials).
    public func ping() throws(StoreError) {
        for (endpoint, reply) in try cluster.eachPrimary({ connection throws(RedisFailure) in try connection.command(["PING"]) }) {
            guard reply.text == "PONG" else { throw StoreError("redis cluster: \(endpoint): unexpected answer to PING") }
        }
    }

    /// How each primary persists (`CONFIG GET appendonly` and `save`).
    public func persistence() throws(StoreError) -> [(node: String, persistence: RedisPersistence)] {
        try cluster.eachPrimary { connection throws(RedisFailure) in
            try connection.pipeline([["CONFIG", "GET", "appendonly"], ["CONFIG", "GET", "save"]])
        }.map { endpoint, replies throws(StoreError) in
            guard case .array(let appendOnly) = replies[0], appendOnly.count == 2,
                  case .array(let save) = replies[1], save.count == 2, let rules = save[1].text
            else { throw StoreError("redis cluster: \(endpoint): CONFIG GET refused: \(replies)") }
            return (endpoint.description, RedisPersistence(
                appendOnly: appendOnly[1].text == "yes", saveRules: rules.allSatisfy(\.isWhitespace) ? "" : rules))
        }
    }

    public func consumeChallenge(_ nonce: [UInt8], expiresAt: Int64) throws(StoreError) -> Bool {
        try RedisStateStore.consumed(batcher.submit(consume(challengeKey(nonce), expiresAt)))
    }

    public func registerKey(_ record: AttestedKeyRecord) throws(StoreError) {
        _ = try batcher.submit(register(record))
    }

    /// Two steps: the challenge is consumed, then the key registered (`RedisClusterStateStore`).
    public func consumeChallenge(
        _ nonce: [UInt8], expiresAt: Int64, thenRegister record: AttestedKeyRecord, joining batch: Batch?,
        completion: @escaping StoreCompletion<Bool>
    ) {
        consumeChallenge(nonce, expiresAt: expiresAt, then: register(record), of: record.keyID, replayed: false,
                         joining: batch, completion: completion) { reply throws(StoreError) in
            try RedisStateStore.registered(reply)
        }
    }

    /// Two steps: the challenge is consumed, then the counter compared and advanced (`RedisClusterStateStore`).
    public func consumeChallenge(
        _ nonce: [UInt8], expiresAt: Int64, thenAdvance keyID: [UInt8], to counter: UInt32, now: Int64,
        joining batch: Batch?, completion: @escaping StoreCompletion<ChallengeThenCounter>
    ) {
        consumeChallenge(nonce, expiresAt: expiresAt, then: advance(keyID, counter, now), of: keyID,
                         replayed: .challengeReplayed, joining: batch, completion: completion) { reply throws(StoreError) in
            .counter(try RedisStateStore.counterAdvance(reply, "advance"))
        }
    }

    /// The challenge is consumed in its slot and, only if that succeeded, `second` runs in the key's slot, its reply
    /// decoded by `decode`; both take the key's lane, so one key's writes are stored in the order they were handed
    /// over. A used or expired challenge answers `replayed` and runs nothing more.
    private func consumeChallenge<Outcome: Sendable>(
        _ nonce: [UInt8], expiresAt: Int64, then second: RedisCall, of keyID: [UInt8], replayed: Outcome,
        joining batch: Batch?, completion: @escaping StoreCompletion<Outcome>,
        decode: @escaping @Sendable (RedisReply) throws(StoreError) -> Outcome
    ) {
        batcher.submit(consume(challengeKey(nonce), expiresAt), orderedBy: recordKey(keyID), joining: batch) {
            [batcher] reply, batch in
            switch reply.flatMap({ reply in Result { () throws(StoreError) in try RedisStateStore.consumed(reply) } }) {
            case .failure(let error): completion(.failure(error), batch)
            case .success(false): completion(.success(replayed), batch)
            case .success(true): batcher.submit(second, joining: batch, completion: decoding(completion, decode))
            }
        }
    }

    public func consumeToken(_ tokenID: String, expiresAt: Int64, joining batch: Batch?, completion: @escaping StoreCompletion<Bool>) {
        batcher.submit(consume(key("token:", Array(tokenID.utf8)), expiresAt), joining: batch,
                       completion: decoding(completion) { reply throws(StoreError) in try RedisStateStore.consumed(reply) })
    }

    public func attestedKey(_ keyID: [UInt8]) throws(StoreError) -> AttestedKeyRecord? {
        try RedisStateStore.record(keyID, from: cluster.execute(.command(["HGETALL", recordKey(keyID)])))
    }

    /// `HGET key risk`: the one field, not the receipt beside it.
    public func riskMetric(of keyID: [UInt8]) throws(StoreError) -> Int? {
        try RedisStateStore.riskMetric(from: cluster.execute(.command(["HGET", recordKey(keyID), "risk"])))
    }

    public func advanceCounter(keyID: [UInt8], to counter: UInt32, now: Int64) throws(StoreError) -> CounterAdvance {
        try RedisStateStore.counterAdvance(batcher.submit(advance(keyID, counter, now)), "advance")
    }

    public func revokeKey(_ keyID: [UInt8], now: Int64) throws(StoreError) -> Bool {
        let reply = try batcher.submit(.script(.revokeKey, keys: [recordKey(keyID)], arguments: [now]))
        guard let revoked = reply.integer else { throw RedisStateStore.unexpected(reply, "revoke") }
        return revoked == 1
    }

    private func register(_ record: AttestedKeyRecord) -> RedisCall {
        .script(.registerClusterKey, keys: [recordKey(record.keyID)], arguments: RedisStateStore.registration(record))
    }

    private func advance(_ keyID: [UInt8], _ counter: UInt32, _ now: Int64) -> RedisCall {
        .script(.advanceCounter, keys: [recordKey(keyID)], arguments: [Int64(counter), now])
    }

    private func consume(_ key: [UInt8], _ expiresAt: Int64) -> RedisCall {
        RedisStateStore.consumeOnce(key, expiresAt: expiresAt, clockSkewSeconds: clockSkewSeconds)
    }

    private func challengeKey(_ nonce: [UInt8]) -> [UInt8] { key("challenge:", nonce) }

    /// `<prefix>key:{<hex id>}`: the id in hex, so no byte of it can end the hash tag early.
    func recordKey(_ keyID: [UInt8]) -> [UInt8] {
        var name = key("key:{", [])
        name.reserveCapacity(name.count + keyID.count * 2 + 1)
        let digits = Array("0123456789abcdef".utf8)
        for byte in keyID {
            name.append(digits[Int(byte >> 4)])
            name.append(digits[Int(byte & 0x0F)])
        }
        name.append(UInt8(ascii: "}"))
        return name
    }

    private func key(_ kind: String, _ id: [UInt8]) -> [UInt8] {
        Array(prefix.utf8) + Array(kind.utf8) + id
    }
}
