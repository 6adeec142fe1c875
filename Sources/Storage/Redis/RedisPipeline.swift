import Synchronization

/// Sends a batch of calls to one server as one pipeline, on one connection, and reads their replies. Scripts run
/// with EVALSHA once their hash is known. The first batch that uses a script sends it whole (EVAL) and loads it
/// (SCRIPT LOAD) for the hash; a server that answers NOSCRIPT (after a restart or a failover, or another node of a
/// cluster) gets the script again in a second round trip, which is safe because a script it did not know did not run.
enum RedisPipeline {
    /// What the pipeline's writes waited for before the replies are trusted (Redis Cluster): `WAIT replicas timeout`
    /// after the batch.
    struct ReplicaWait {
        let replicas: Int
        let timeoutMilliseconds: Int
    }

    /// The replies of `calls`, in order, and with `wait` the number of replicas that acknowledged them (nil when
    /// the batch held no script, so nothing was written). With `asking`, each call is preceded by ASKING: the
    /// server is the target of an ASK redirection, importing the call's slot.
    static func send(
        _ calls: [RedisCall], on connection: RedisConnection, hashes: RedisScriptHashes, asking: Bool = false,
        wait: ReplicaWait? = nil
    ) throws(RedisFailure) -> (replies: [RedisReply], acknowledged: Int64?) {
        try start(calls, on: connection, hashes: hashes, asking: asking, wait: wait).finish(on: connection, hashes: hashes)
    }

    /// The first half of `send`: writes the pipeline and returns what is needed to read its replies with
    /// `InFlight.finish`, later, on the same connection.
    static func start(
        _ calls: [RedisCall], on connection: RedisConnection, hashes: RedisScriptHashes, asking: Bool = false,
        wait: ReplicaWait? = nil
    ) throws(RedisFailure) -> InFlight {
        let known = hashes.known.withLock { $0 }
        // Scripts sent whole in this batch are also loaded, once each, for their hash.
        var loads: [RedisScript] = []
        for call in calls {
            if let script = call.script, known[script.name] == nil, !loads.contains(where: { $0.name == script.name }) {
                loads.append(script)
            }
        }
        let waitCommand: [any RedisArgument]? = wait.flatMap { wait in
            calls.contains { $0.script != nil } ? ["WAIT", wait.replicas, wait.timeoutMilliseconds] : nil
        }
        var commands: [[any RedisArgument]] = loads.map { ["SCRIPT", "LOAD", $0.source] }
        commands.reserveCapacity(loads.count + calls.count * (asking ? 2 : 1) + 1)
        for call in calls {
            if asking { commands.append(["ASKING"]) }
            commands.append(call.arguments(hashes: known))
        }
        if let waitCommand { commands.append(waitCommand) }
        try connection.send(commands)
        return InFlight(calls: calls, loads: loads, waitCommand: waitCommand, asking: asking, replyCount: commands.count)
    }

    /// A pipeline written by `start` whose replies are still to be read.
    struct InFlight {
        let calls: [RedisCall]
        let loads: [RedisScript]
        let waitCommand: [any RedisArgument]?
        let asking: Bool
        let replyCount: Int

        /// Reads the replies (see `send`); a call the server answered NOSCRIPT is sent again with its script's text,
        /// in a second round trip.
        func finish(on connection: RedisConnection, hashes: RedisScriptHashes) throws(RedisFailure)
            -> (replies: [RedisReply], acknowledged: Int64?) {
            var replies = try connection.receive(replyCount)
            for (script, reply) in zip(loads, replies.prefix(loads.count)) {
                if let hash = reply.text { hashes.known.withLock { $0[script.name] = hash } }
            }
            replies.removeFirst(loads.count)
            var acknowledged = waitCommand == nil ? nil : replies.popLast()?.integer
            if asking { replies = stride(from: 1, to: replies.count, by: 2).map { replies[$0] } }
            let lost = replies.indices.filter { replies[$0].isNoScript && calls[$0].script != nil }
            guard !lost.isEmpty else { return (replies, acknowledged) }
            // The server forgot its scripts: run those calls again with the scripts' text.
            var again: [[any RedisArgument]] = []
            for index in lost {
                if asking { again.append(["ASKING"]) }
                again.append(calls[index].arguments(hashes: [:]))
            }
            if let waitCommand { again.append(waitCommand) }
            var answers = try connection.pipeline(again)
            if waitCommand != nil { acknowledged = answers.popLast()?.integer }
            if asking { answers = stride(from: 1, to: answers.count, by: 2).map { answers[$0] } }
            for (index, reply) in zip(lost, answers) { replies[index] = reply }
            return (replies, acknowledged)
        }
    }

    /// One outcome per call: a script's error reply is a `StoreError`, any other reply is the call's answer.
    static func outcomes(_ calls: [RedisCall], _ replies: [RedisReply]) -> [Result<RedisReply, StoreError>] {
        zip(calls, replies).map { call, reply in
            if let script = call.script, case .error(let message) = reply {
                return .failure(StoreError("redis: \(script.name) script failed: \(message)"))
            }
            return .success(reply)
        }
    }
}

/// The SHA1 of each script a server has loaded, by script name (the same on every server: it is the script's).
final class RedisScriptHashes: Sendable {
    let known = Mutex<[String: String]>([:])
}

extension RedisReply {
    var isNoScript: Bool {
        if case .error(let message) = self { return message.hasPrefix("NOSCRIPT") }
        return false
    }
}
