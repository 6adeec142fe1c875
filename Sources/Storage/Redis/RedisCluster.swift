import Glibc
import Synchronization

/// The primaries of a Redis Cluster, a connection pool for each, and the slot map that says which serves a key.
/// A batch of calls is split by primary, one pipeline each, all written before any reply is read (`send(_:)`); a
/// call answered MOVED, ASK or TRYAGAIN (it did not run) is sent again where the answer says, up to
/// `maxRedirections` times. The slot map is read with CLUSTER SLOTS at first use, and again (at most every
/// `refreshInterval`) after a redirection, a connection failure or CLUSTERDOWN: after a failover or a resharding the
/// calls go to the new primaries without a restart. Replicas are never sent anything, and with
/// `replicasToAcknowledge` each pipeline of writes ends with WAIT (`RedisPipeline.ReplicaWait`).
final class RedisCluster: Sendable {
    typealias Endpoint = RedisClusterConfiguration.Endpoint

    private let configuration: RedisClusterConfiguration
    let hashes = RedisScriptHashes()
    let wait: RedisPipeline.ReplicaWait?
    private struct Topology: ~Copyable {
        var map = RedisSlotMap.empty
        /// The map may be out of date: read it again before the next batch.
        var stale = true
        var refreshedAt: ContinuousClock.Instant?
        var refreshing = false
        /// Why the last reading found no node to answer CLUSTER SLOTS (refused AUTH, a TLS handshake, unreachable
        /// nodes), reported by calls that then find no primary; nil after a reading that got a map.
        var unreadable: String?
    }
    private let topology = Mutex(Topology())
    private let pools = Mutex<[Endpoint: RedisConnectionPool]>([:])
    /// The shortest time between two readings of the slot map, so that a failing cluster is not asked for it on
    /// every batch.
    static let refreshInterval: Duration = .milliseconds(100)

    init(_ configuration: RedisClusterConfiguration) {
        self.configuration = configuration
        wait = configuration.replicasToAcknowledge > 0
            ? .init(replicas: configuration.replicasToAcknowledge, timeoutMilliseconds: configuration.replicaTimeoutMilliseconds)
            : nil
    }

    /// Runs `calls` (each touching keys of one slot, the first key naming it) and answers one outcome per call, in
    /// order: the reply, or a `StoreError` (a script's error reply, an unreachable primary, writes no replica
    /// acknowledged in time, too many redirections).
    func execute(_ calls: [RedisCall]) -> [Result<RedisReply, StoreError>] {
        var outcomes = [Result<RedisReply, StoreError>?](repeating: nil, count: calls.count)
        // Calls still to send, and the target of an ASK redirection for those that got one.
        var pending: [(index: Int, asked: Endpoint?)] = calls.indices.map { ($0, nil) }
        var attempt = 0
        while !pending.isEmpty {
            if attempt > configuration.maxRedirections {
                for (index, _) in pending {
                    outcomes[index] = .failure(StoreError(
                        "redis cluster: still redirected after \(configuration.maxRedirections) redirections"))
                }
                break
            }
            if attempt == 0 || pending.contains(where: { $0.asked == nil }) { refreshIfStale() }
            let (map, unreadable) = topology.withLock { ($0.map, $0.unreadable) }
            var groups: [Target: [Int]] = [:]
            for (index, asked) in pending {
                if let asked {
                    groups[Target(endpoint: asked, asking: true), default: []].append(index)
                } else if let primary = map.primary(of: Self.slot(of: calls[index])) {
                    groups[Target(endpoint: primary, asking: false), default: []].append(index)
                } else {
                    markStale()
                    outcomes[index] = .failure(StoreError(unreadable.map { "redis cluster: cannot read the slot map: \($0)" }
                        ?? "redis cluster: no primary serves slot \(Self.slot(of: calls[index])) (the cluster is failing over, or incomplete)"))
                }
            }
            pending = []
            var pause = false
            let targets = Array(groups)
            let pipelines = targets.map { target, indices in Pipeline(target: target, calls: indices.map { calls[$0] }) }
            for (((target, indices), batch), result) in zip(zip(targets, pipelines.map(\.calls)), send(pipelines)) {
                let sent: Sent
                switch result {
                case .success(let replies): sent = replies
                case .failure(let error):
                    markStale()
                    let failure = StoreError("redis cluster: \(target.endpoint): \(error.description)")
                    for index in indices { outcomes[index] = .failure(failure) }
                    continue
                }
                let answered = RedisPipeline.outcomes(batch, sent.replies)
                for (position, index) in indices.enumerated() {
                    let reply = sent.replies[position]
                    switch RedisRedirection(reply) {
                    case .moved(let slot, let endpoint):
                        topology.withLock { topology in
                            topology.map.move(slot, to: endpoint)
                            topology.stale = true
                        }
                        pending.append((index, nil))
                    case .ask(_, let endpoint):
                        pending.append((index, endpoint))
                    case .tryAgain:
                        pause = true
                        pending.append((index, target.asking ? target.endpoint : nil))
                    case nil:
                        if case .error(let message) = reply, message.hasPrefix("CLUSTERDOWN") { markStale() }
                        outcomes[index] = acknowledged(answered[position], call: calls[index], sent.acknowledged, by: target.endpoint)
                    }
                }
            }
            attempt += 1
            // A slot whose keys are split between two nodes mid-migration: give the migration a moment.
            if pause { usleep(UInt32(10_000 * attempt)) }
        }
        return outcomes.map { $0 ?? .failure(StoreError("redis cluster: a call got no outcome")) }
    }

    /// Runs one keyed call and waits for its outcome.
    func execute(_ call: RedisCall) throws(StoreError) -> RedisReply {
        try execute([call])[0].get()
    }

    /// Runs `body` on a connection to each primary of the slot map, read afresh; answers per primary.
    func eachPrimary<T>(_ body: (RedisConnection) throws(RedisFailure) -> T) throws(StoreError) -> [(Endpoint, T)] {
        markStale()
        refreshIfStale()
        let (primaries, unserved, unreadable) = topology.withLock { ($0.map.primaries, $0.map.unservedSlots, $0.unreadable) }
        guard !primaries.isEmpty else {
            throw StoreError("redis cluster: cannot read the slot map: \(unreadable ?? "no node answered CLUSTER SLOTS")")
        }
        guard unserved == 0 else { throw StoreError("redis cluster: \(unserved) slots have no primary") }
        var answers: [(Endpoint, T)] = []
        for endpoint in primaries {
            do throws(StoreError) {
                answers.append((endpoint, try pool(endpoint).withConnection(body)))
            } catch {
                throw StoreError("redis cluster: \(endpoint): \(error.description)")
            }
        }
        return answers
    }

    /// A write answered by a primary counts once `wait` was met: else the primary has it, but a failover might not.
    private func acknowledged(_ outcome: Result<RedisReply, StoreError>, call: RedisCall, _ replicas: Int64?,
                              by endpoint: Endpoint) -> Result<RedisReply, StoreError> {
        guard let wait, call.script != nil, case .success = outcome else { return outcome }
        guard let replicas, replicas >= wait.replicas else {
            return .failure(StoreError("redis cluster: \(endpoint) stored the write, but \(replicas.map(String.init) ?? "no")"
                + " of the \(wait.replicas) replicas required acknowledged it within \(wait.timeoutMilliseconds) ms"))
        }
        return outcome
    }

    /// A server to send a pipeline to, and whether it is the target of an ASK redirection.
    struct Target: Hashable {
        let endpoint: Endpoint
        let asking: Bool
    }

    /// The slot of a call's first key (a command's first argument after its name).
    static func slot(of call: RedisCall) -> Int {
        switch call {
        case .script(_, let keys, _):
            return RedisKeySlot.of(keys.first ?? [])
        case .command(let arguments):
            return RedisKeySlot.of(arguments.count > 1 ? (arguments[1] as? [UInt8]) ?? [] : [])
        }
    }

    func pool(_ endpoint: Endpoint) -> RedisConnectionPool {
        pools.withLock { pools in
            if let pool = pools[endpoint] { return pool }
            var node = configuration.connection
            node.host = endpoint.host
            node.port = endpoint.port
            node.database = 0
            node.sentinel = nil
            let pool = RedisConnectionPool(node)
            pools[endpoint] = pool
            return pool
        }
    }

    private func markStale() {
        topology.withLock { $0.stale = true }
    }

    /// Reads the slot map again when it is stale and was not read within `refreshInterval`; one thread at a time
    /// reads it, the others go on with the map they have.
    private func refreshIfStale() {
        let now = ContinuousClock.now
        let due = topology.withLock { topology in
            guard topology.stale, !topology.refreshing,
                  topology.refreshedAt.map({ now - $0 >= Self.refreshInterval }) ?? true else { return false }
            topology.refreshing = true
            return true
        }
        guard due else { return }
        let read = readSlotMap()
        topology.withLock { topology in
            topology.refreshing = false
            topology.refreshedAt = ContinuousClock.now
            switch read {
            case .success(let map):
                topology.map = map
                topology.stale = map.unservedSlots > 0
                topology.unreadable = nil
            case .failure(let failure):
                topology.unreadable = failure.description
            }
        }
    }

    /// CLUSTER SLOTS from the known primaries, then the seeds, the first that answers; when none does, what the
    /// last one asked said (so that a refused password or certificate is reported as such).
    private func readSlotMap() -> Result<RedisSlotMap, StoreError> {
        var candidates = topology.withLock { $0.map.primaries }
        for seed in configuration.seeds where !candidates.contains(seed) { candidates.append(seed) }
        var best: RedisSlotMap?
        var failure = StoreError("no node to ask for CLUSTER SLOTS")
        for endpoint in candidates {
            do throws(StoreError) {
                let reply = try pool(endpoint).withConnection { connection throws(RedisFailure) in
                    try connection.command(["CLUSTER", "SLOTS"])
                }
                if case .error(let message) = reply {
                    failure = StoreError("\(endpoint): CLUSTER SLOTS refused: \(message)")
                    continue
                }
                guard let map = try? RedisSlotMap(clusterSlots: reply, asked: endpoint) else {
                    failure = StoreError("\(endpoint): unexpected answer to CLUSTER SLOTS")
                    continue
                }
                // A node that has not yet learnt of a failover may name a dead primary; a full map is preferred.
                if map.unservedSlots == 0 { return .success(map) }
                if best.map({ map.unservedSlots < $0.unservedSlots }) ?? true { best = map }
            } catch {
                failure = StoreError("\(endpoint): \(error.description)")
            }
        }
        return best.map { .success($0) } ?? .failure(failure)
    }
}
