import Foundation

extension Configuration {
    /// `store.redisCluster`: a Redis Cluster, reached through any of `nodes`; the other fields as for a single Redis.
    public struct RedisCluster: Sendable {
        /// host and port of a few nodes, asked for the slot map until one answers.
        public var nodes: [(host: String, port: Int)]
        public var username: String?
        public var password: String?
        public var keyPrefix: String
        public var poolSize: Int
        public var connectTimeoutMilliseconds: Int
        public var commandTimeoutMilliseconds: Int
        public var tls: RedisTLS?
        /// Replicas that must hold a write before it is answered (WAIT); 0 waits for none.
        public var replicasToAcknowledge: Int
        /// How long WAIT waits for them; below the command timeout.
        public var replicaTimeoutMilliseconds: Int
    }

    /// `{"nodes": [{"host": "…", "port": 6379}, …], username, password or passwordFile, keyPrefix, poolSize,
    /// connectTimeoutMs, commandTimeoutMs, tls, replicasToAcknowledge (0 to 5, default 1), replicaTimeoutMs (default
    /// 200, below commandTimeoutMs)}`; at least one node; a key prefix without `{` or `}` (a hash tag in it would
    /// put every key in one slot).
    package static func readRedisCluster(_ reader: JSONFieldReader, resolve: (String) -> String) -> RedisCluster {
        reader.rejectUnknownKeys(except: [
            "nodes", "username", "password", "passwordFile", "keyPrefix", "poolSize", "connectTimeoutMs",
            "commandTimeoutMs", "tls", "replicasToAcknowledge", "replicaTimeoutMs",
        ])
        let nodes = reader.objects("nodes").map { node in
            node.rejectUnknownKeys(except: ["host", "port"])
            return (host: node.string("host") ?? "", port: node.integer("port", default: 6379, in: 1...65535))
        }
        if nodes.isEmpty { reader.problem(reader.field("nodes"), "must list at least one node of the cluster") }
        let keyPrefix = reader.string("keyPrefix", default: "attestd:") ?? "attestd:"
        if keyPrefix.contains("{") || keyPrefix.contains("}") {
            reader.problem(reader.field("keyPrefix"), "must not hold { or }: a hash tag in it would put every key in one slot")
        }
        let commandTimeout = reader.integer("commandTimeoutMs", default: 500, in: 10...60_000)
        let replicaTimeout = reader.integer("replicaTimeoutMs", default: 200, in: 1...60_000)
        if replicaTimeout >= commandTimeout {
            reader.problem(reader.field("replicaTimeoutMs"), "must be below commandTimeoutMs (\(commandTimeout))")
        }
        return RedisCluster(
            nodes: nodes,
            username: reader.string("username", default: "").flatMap { $0.isEmpty ? nil : $0 },
            password: readRedisPassword(reader, resolve: resolve),
            keyPrefix: keyPrefix,
            poolSize: reader.integer("poolSize", default: 8, in: 1...256),
            connectTimeoutMilliseconds: reader.integer("connectTimeoutMs", default: 500, in: 10...60_000),
            commandTimeoutMilliseconds: commandTimeout,
            tls: reader.object("tls").map { readRedisTLS($0, resolve: resolve) },
            replicasToAcknowledge: reader.integer("replicasToAcknowledge", default: 1, in: 0...5),
            replicaTimeoutMilliseconds: replicaTimeout)
    }

    /// `password`, or the first line of the file `passwordFile` names (which wins); nil for neither.
    package static func readRedisPassword(_ reader: JSONFieldReader, resolve: (String) -> String) -> String? {
        var password = reader.string("password", default: "").flatMap { $0.isEmpty ? nil : $0 }
        if let file = reader.string("passwordFile", default: "").flatMap({ $0.isEmpty ? nil : resolve($0) }) {
            if let text = try? String(contentsOfFile: file, encoding: .utf8) {
                password = text.trimmingCharacters(in: .whitespacesAndNewlines)
            } else {
                reader.problem(reader.field("passwordFile"), "cannot be read")
            }
        }
        return password
    }
}
