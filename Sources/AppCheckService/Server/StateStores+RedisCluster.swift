import Config
import Observability
import Storage

extension StateStores {
    /// A Redis Cluster store; like a single Redis, attestd starts while the cluster is down and fails closed
    /// (UNAVAILABLE) until it answers.
    static func openCluster(_ cluster: Configuration.RedisCluster, clockSkewSeconds: Int64, logger: Logger) -> RedisClusterStateStore {
        logger.info("state store: Redis Cluster", [
            ("nodes", cluster.nodes.map { "\($0.host):\($0.port)" }.joined(separator: ",")), ("keyPrefix", cluster.keyPrefix),
            ("tls", cluster.tls == nil ? "off" : "verified"),
            ("replicasToAcknowledge", String(cluster.replicasToAcknowledge)),
            ("replicaTimeoutMs", String(cluster.replicaTimeoutMilliseconds)),
        ])
        if cluster.replicasToAcknowledge == 0 {
            logger.warning("store.redisCluster.replicasToAcknowledge is 0: a primary that fails over may lose the consumed challenges and counters it answered last, which may then be replayed")
        }
        var connection = RedisConfiguration(
            username: cluster.username, password: cluster.password, keyPrefix: cluster.keyPrefix, poolSize: cluster.poolSize,
            connectTimeoutMilliseconds: cluster.connectTimeoutMilliseconds,
            commandTimeoutMilliseconds: cluster.commandTimeoutMilliseconds,
            tls: cluster.tls.map { tls in
                RedisTLSConfiguration(caFilePath: tls.caFilePath, serverName: tls.serverName,
                                      certificatePath: tls.certificatePath, privateKeyPath: tls.privateKeyPath)
            })
        connection.clockSkewSeconds = clockSkewSeconds
        let store = RedisClusterStateStore(RedisClusterConfiguration(
            seeds: cluster.nodes.map { .init(host: $0.host, port: $0.port) }, connection: connection,
            replicasToAcknowledge: cluster.replicasToAcknowledge,
            replicaTimeoutMilliseconds: cluster.replicaTimeoutMilliseconds))
        do {
            try store.ping()
            for (node, persistence) in try store.persistence() where persistence.keepsNothingOnDisk {
                logger.warning("a Redis Cluster primary keeps nothing on disk (appendonly no, save \"\"): restarted before its replica takes over (within cluster-node-timeout, as a container restart is) or together with its replicas, it comes back empty and its replicas copy the empty data set, so consumed challenges and tokens may be replayed and attested keys are lost; set appendonly yes", [("node", node)])
            }
        } catch {
            logger.error("the Redis Cluster is not answering yet; exchanges answer UNAVAILABLE until it does", [("error", error.description)])
        }
        return store
    }
}
