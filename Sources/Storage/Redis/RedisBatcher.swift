import Batching
import Synchronization

/// Pipelines the store's commands on I/O threads of its own (`ThreadedCommitter`, threads named `redis-io-N`):
/// callers only queue a command with its completion; each I/O thread sends everything queued as one pipeline, on
/// its own connection of the pool, in one write, reads the replies and runs the completions. A few pipelines may
/// be in flight at once, one per I/O thread. Under load one round trip and one wake-up of redis-server serve a whole
/// batch, and no verifier thread ever waits for a reply or touches a socket. How a batch is sent is the `send`
/// function's: one pipeline to a single primary (`RedisPipeline`), or one per primary of a cluster (`RedisCluster`).
final class RedisBatcher: Sendable {
    /// A queued call and its lane (`lane(of:orderedKeyPrefix:)`).
    struct Job: Sendable {
        let call: RedisCall
        let lane: Int
    }

    /// Sends a batch and answers one outcome per call, in order; runs on an I/O thread.
    typealias Send = @Sendable ([RedisCall]) -> [Result<RedisReply, StoreError>]

    private let committer: ThreadedCommitter<Job, RedisReply>
    private let orderedKeyPrefix: [UInt8]

    /// Starts `maxPipelinesInFlight` I/O threads. A command that waited `commandTimeout` in the queue (the server
    /// hangs, and every pipeline takes a whole timeout to fail) fails without being sent.
    ///
    /// Commands that touch the same key named `orderedKeyPrefix…` (an attested key's record) go through the same I/O
    /// thread, one pipeline after the other, so they are stored in the order they were queued.
    init(maxBatchSize: Int, maxPipelinesInFlight: Int, commandTimeout: Duration, orderedKeyPrefix: [UInt8], send: @escaping Send) {
        self.orderedKeyPrefix = orderedKeyPrefix
        committer = ThreadedCommitter(
            threads: maxPipelinesInFlight, name: "redis-io", maxBatchSize: maxBatchSize, maxQueueWait: commandTimeout,
            closedError: StoreError("redis: the store is closed"), lane: { $0.lane }
        ) { jobs in
            send(jobs.map(\.call))
        }
    }

    /// One pipeline per batch to the single server of `pool`.
    convenience init(pool: RedisConnectionPool, maxBatchSize: Int, maxPipelinesInFlight: Int, commandTimeout: Duration,
                     orderedKeyPrefix: [UInt8]) {
        let hashes = RedisScriptHashes()
        self.init(maxBatchSize: maxBatchSize, maxPipelinesInFlight: maxPipelinesInFlight, commandTimeout: commandTimeout,
                  orderedKeyPrefix: orderedKeyPrefix) { calls in
            do throws(StoreError) {
                let replies = try pool.withConnection { connection throws(RedisFailure) in
                    try RedisPipeline.send(calls, on: connection, hashes: hashes).replies
                }
                return RedisPipeline.outcomes(calls, replies)
            } catch {
                return Array(repeating: .failure(error), count: calls.count)
            }
        }
    }

    /// A hash of the first key of `call` named `orderedKeyPrefix…`, else of its first key: every call that changes
    /// one attested key's record has the same lane.
    private static func lane(of call: RedisCall, orderedKeyPrefix: [UInt8]) -> Int {
        let keys: [[UInt8]]
        switch call {
        case .script(_, let scriptKeys, _): keys = scriptKeys
        case .command(let arguments): keys = arguments.count > 1 ? [(arguments[1] as? [UInt8]) ?? []] : []
        }
        guard let key = keys.first(where: { $0.starts(with: orderedKeyPrefix) }) ?? keys.first else { return 0 }
        return lane(of: key)
    }

    private static func lane(of key: [UInt8]) -> Int {
        var hasher = Hasher()
        key.withUnsafeBytes { hasher.combine(bytes: $0) }
        return hasher.finalize()
    }

    deinit { committer.stop() }

    /// Refuses new commands, answers those queued, and stops the I/O threads.
    func stop() {
        committer.stop()
    }

    /// Queues `call` and returns at once; `completion` gets the reply (a script's error reply is a `StoreError`), on
    /// an I/O thread. With `orderedBy`, the call takes the lane of that key rather than its own: a cluster's first
    /// step of a combined write (the challenge) goes the way its second (the attested key) will.
    func submit(_ call: RedisCall, orderedBy key: [UInt8]? = nil, joining batch: Batch?,
                completion: @escaping StoreCompletion<RedisReply>) {
        let lane = key.map { Self.lane(of: $0) } ?? Self.lane(of: call, orderedKeyPrefix: orderedKeyPrefix)
        committer.submit(Job(call: call, lane: lane), joining: batch, completion: completion)
    }

    /// Queues `call` and waits for its reply.
    func submit(_ call: RedisCall) throws(StoreError) -> RedisReply {
        try committer.submitAndWait(Job(call: call, lane: Self.lane(of: call, orderedKeyPrefix: orderedKeyPrefix)))
    }
}
