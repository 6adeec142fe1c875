import Batching
import Synchronization

/// Pipelines the store's commands on I/O threads of its own (`ThreadedCommitter`, threads named `redis-io-N`):
/// callers only queue a command with its completion; each I/O thread sends everything queued as one pipeline, on
/// its own connection of the pool, in one write, reads the replies and runs the completions. A few pipelines may
/// be in flight at once, one per I/O thread. Under load one round trip and one wake-up of redis-server serve a whole
/// batch, and no verifier thread ever waits for a reply or touches a socket.
///
/// Scripts run with EVALSHA once their hash is known. The first batch that uses a script sends it whole (EVAL) and
/// loads it (SCRIPT LOAD) for the hash; a server that answers NOSCRIPT (after a restart or a failover) gets the
/// script again in a second round trip, which is safe because a script it did not know did not run.
final class RedisBatcher: Sendable {
    private let committer: ThreadedCommitter<RedisCall, RedisReply>

    /// Starts `maxPipelinesInFlight` I/O threads. A command that waited `commandTimeout` in the queue (the server
    /// hangs, and every pipeline takes a whole timeout to fail) fails without being sent.
    ///
    /// Commands that touch the same key named `orderedKeyPrefix…` (an attested key's record) go through the same I/O
    /// thread, one pipeline after the other, so they are stored in the order they were queued.
    init(pool: RedisConnectionPool, maxBatchSize: Int, maxPipelinesInFlight: Int, commandTimeout: Duration,
         orderedKeyPrefix: [UInt8]) {
        let hashes = ScriptHashes()
        committer = ThreadedCommitter(
            threads: maxPipelinesInFlight, name: "redis-io", maxBatchSize: maxBatchSize, maxQueueWait: commandTimeout,
            closedError: StoreError("redis: the store is closed"),
            lane: { call in Self.lane(of: call, orderedKeyPrefix: orderedKeyPrefix) }
        ) { calls in
            Self.send(calls, pool: pool, hashes: hashes)
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
    /// an I/O thread.
    func submit(_ call: RedisCall, joining batch: Batch?, completion: @escaping StoreCompletion<RedisReply>) {
        committer.submit(call, joining: batch, completion: completion)
    }

    /// Queues `call` and waits for its reply.
    func submit(_ call: RedisCall) throws(StoreError) -> RedisReply {
        try committer.submitAndWait(call)
    }

    private static func send(_ calls: [RedisCall], pool: RedisConnectionPool, hashes: ScriptHashes) -> [Result<RedisReply, StoreError>] {
        let replies: [RedisReply]
        do throws(StoreError) {
            replies = try pool.withConnection { connection throws(RedisFailure) in
                let known = hashes.known.withLock { $0 }
                // Scripts sent whole in this batch are also loaded, once each, for their hash.
                var loads: [RedisScript] = []
                for call in calls {
                    if let script = call.script, known[script.name] == nil, !loads.contains(where: { $0.name == script.name }) {
                        loads.append(script)
                    }
                }
                var commands: [[any RedisArgument]] = loads.map { ["SCRIPT", "LOAD", $0.source] }
                commands.reserveCapacity(loads.count + calls.count)
                for call in calls { commands.append(call.arguments(hashes: known)) }
                var replies = try connection.pipeline(commands)
                learn(zip(loads, replies.prefix(loads.count)), into: hashes)
                replies.removeFirst(loads.count)
                let lost = replies.indices.filter { replies[$0].isNoScript && calls[$0].script != nil }
                guard !lost.isEmpty else { return replies }
                // The server forgot its scripts: run those calls again with the scripts' text.
                let again = try connection.pipeline(lost.map { calls[$0].arguments(hashes: [:]) })
                for (index, reply) in zip(lost, again) { replies[index] = reply }
                return replies
            }
        } catch {
            return Array(repeating: .failure(error), count: calls.count)
        }
        return zip(calls, replies).map { call, reply in
            if let script = call.script, case .error(let message) = reply {
                return .failure(StoreError("redis: \(script.name) script failed: \(message)"))
            }
            return .success(reply)
        }
    }

    private static func learn(_ loaded: Zip2Sequence<[RedisScript], ArraySlice<RedisReply>>, into hashes: ScriptHashes) {
        for (script, reply) in loaded {
            if let hash = reply.text { hashes.known.withLock { $0[script.name] = hash } }
        }
    }
}

/// The SHA1 of each script the server has loaded, by script name.
private final class ScriptHashes: Sendable {
    let known = Mutex<[String: String]>([:])
}

extension RedisReply {
    var isNoScript: Bool {
        if case .error(let message) = self { return message.hasPrefix("NOSCRIPT") }
        return false
    }
}
