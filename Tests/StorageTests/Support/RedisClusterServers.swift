import Foundation
import Glibc
import Storage

/// A real Redis Cluster on free loopback ports: `primaries` redis-servers with `--cluster-enabled yes`, and
/// `replicasPerPrimary` replicas of each, joined with `redis-cli --cluster create`, ready once every node says
/// `cluster_state:ok` and every replica's link to its primary is up. A node timeout of 1 s makes a killed primary
/// fail over within a few seconds. Stopped when released (every node SIGKILLed).
///
/// With `password`, every node requires it of clients and replicas give it to their primaries. With `tls`, every
/// node serves TLS only (no plain port), and the cluster bus and replication run over TLS too, each node presenting
/// its server certificate to the others.
final class RedisClusterServers: @unchecked Sendable {
    let nodes: [RedisServer]
    let replicasPerPrimary: Int

    init(primaries: Int = 3, replicasPerPrimary: Int = 1, password: String? = nil, tls: RedisServer.TLS? = nil) throws {
        self.replicasPerPrimary = replicasPerPrimary
        let secure = tls == nil ? [] : ["--tls-cluster", "yes", "--tls-replication", "yes"]
        nodes = try (0..<(primaries * (1 + replicasPerPrimary))).map { _ in
            // The bus port is named: the default (port + 10000) may be taken, or past 65535 for a high free port.
            // Replicas copy their primary at once (no 5 s wait for more replicas to share a diskless copy).
            try RedisServer(arguments: [
                "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-port", String(try RedisServer.freePort()),
                "--cluster-node-timeout", "1000", "--cluster-replica-validity-factor", "0", "--repl-diskless-sync-delay", "0",
            ] + secure, tls: tls, password: password)
        }
        let created = try RedisServer.cli(
            port: nodes[0].port, options: nodes[0].cliOptions,
            ["--cluster", "create"] + nodes.map { "127.0.0.1:\($0.port)" }
                + ["--cluster-replicas", String(replicasPerPrimary), "--cluster-yes"],
            standardError: FileHandle.nullDevice)
        guard created.contains("[OK] All 16384 slots covered") else {
            throw RedisServer.NotReady(description: "redis-cli --cluster create failed: \(created)")
        }
        try waitUntilReady()
    }

    deinit { stop() }

    func stop() {
        for node in nodes { node.stop() }
    }

    /// The nodes to give the store: any one would do; two in case one is down.
    var seeds: [RedisClusterConfiguration.Endpoint] {
        nodes.prefix(2).map { .init(host: "127.0.0.1", port: $0.port) }
    }

    /// Waits (up to 20 s) until every running node sees the cluster whole and each primary has its replicas online.
    func waitUntilReady(skipping stopped: Set<Int> = []) throws {
        for _ in 0..<200 {
            if ready(skipping: stopped) { return }
            usleep(100_000)
        }
        throw RedisServer.NotReady(description: "the Redis Cluster did not become ready within 20 s")
    }

    private func ready(skipping stopped: Set<Int>) -> Bool {
        for node in nodes where !stopped.contains(node.port) {
            guard let info = try? node.cli(["CLUSTER", "INFO"]), info.contains("cluster_state:ok"),
                  let replication = try? node.cli(["INFO", "replication"]) else { return false }
            guard replication.contains("role:master"), ownsSlots(node) else { continue }
            let online = replication.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("slave") && $0.contains("state=online") }
            if online.count < replicasPerPrimary { return false }
        }
        return true
    }

    /// Whether `node` serves slots (a primary without slots needs no replica).
    private func ownsSlots(_ node: RedisServer) -> Bool {
        guard let table = try? node.cli(["CLUSTER", "NODES"]),
              let line = table.split(whereSeparator: \.isNewline).first(where: { $0.contains("myself") }) else { return false }
        return line.split(separator: " ").count > 8
    }

    /// The node serving `slot` as primary, and its id, from `CLUSTER NODES` asked of `askedNode` (default: the
    /// first that answers).
    func primary(of slot: Int, asking askedNode: RedisServer? = nil) throws -> (node: RedisServer, id: String) {
        for asked in askedNode.map({ [$0] }) ?? nodes {
            guard let table = try? asked.cli(["CLUSTER", "NODES"]), !table.isEmpty else { continue }
            for line in table.split(whereSeparator: \.isNewline) {
                let fields = line.split(separator: " ")
                guard fields.count > 8, fields[2].contains("master"), !fields[2].contains("fail") else { continue }
                let serves = fields[8...].contains { range in
                    guard !range.hasPrefix("[") else { return false }
                    let bounds = range.split(separator: "-").compactMap { Int($0) }
                    return bounds.count == 2 ? (bounds[0]...bounds[1]).contains(slot) : bounds.first == slot
                }
                guard serves, let port = Int(fields[1].split(separator: "@")[0].split(separator: ":").last ?? ""),
                      let node = nodes.first(where: { $0.port == port }) else { continue }
                return (node, String(fields[0]))
            }
        }
        throw RedisServer.NotReady(description: "no node names a primary of slot \(slot)")
    }

    /// The id of `node` (`CLUSTER MYID`).
    func id(of node: RedisServer) throws -> String {
        try node.cli(["CLUSTER", "MYID"])
    }
}
