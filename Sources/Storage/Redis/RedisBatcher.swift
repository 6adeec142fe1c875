import Synchronization

/// Pipelines the store's commands: every command queued while the pipelines in flight are on the wire goes out in a
/// next one, on one connection, in one write (`GroupCommitter`). A few pipelines may be in flight at once, each on
/// its own connection, so that a verifier thread with writes to send need not wait for another's round trip. Under load one round trip and one wake-up of redis-server
/// serve a whole batch, and no verifier thread sleeps waiting for a reply.
///
/// Scripts run with EVALSHA once their hash is known. The first batch that uses a script sends it whole (EVAL) and
/// loads it (SCRIPT LOAD) for the hash; a server that answers NOSCRIPT (after a restart or a failover) gets the
/// script again in a second round trip, which is safe because a script it did not know did not run.
final class RedisBatcher: Sendable {
    private let committer: GroupCommitter<RedisCall, RedisReply>

    init(pool: RedisConnectionPool, maxBatchSize: Int, maxPipelinesInFlight: Int) {
        let hashes = ScriptHashes()
        committer = GroupCommitter(maxBatchSize: maxBatchSize, maxConcurrentBatches: maxPipelinesInFlight,
                                   closedError: StoreError("redis: the store is closed")) { calls in
            Self.send(calls, pool: pool, hashes: hashes)
        }
    }

    /// Queues `call` and returns at once; `completion` gets the reply (a script's error reply is a `StoreError`).
    func submit(_ call: RedisCall, completion: @escaping StoreCompletion<RedisReply>) {
        committer.submit(call, completion: completion)
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
