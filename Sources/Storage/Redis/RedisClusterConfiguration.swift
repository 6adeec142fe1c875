/// How `RedisClusterStateStore` reaches a Redis Cluster. attestd's configuration maps its JSON `store.redisCluster`
/// onto this.
public struct RedisClusterConfiguration: Sendable {
    /// One node's address.
    public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
        public var host: String
        public var port: Int

        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }

        public var description: String { "\(host):\(port)" }
    }

    /// Nodes asked for the slot map (CLUSTER SLOTS) until one answers: any few nodes of the cluster; the rest are
    /// learnt from the map.
    public var seeds: [Endpoint]
    /// Credentials, key prefix, pool size, timeouts, TLS and clock skew, as for a single primary, for every node;
    /// `host`, `port`, `database` and `sentinel` are not used (a cluster has database 0 only). The prefix must not
    /// hold `{` or `}`: a hash tag in it would put every key in one slot.
    public var connection: RedisConfiguration
    /// Each pipeline of writes ends with `WAIT replicasToAcknowledge replicaTimeout`: its writes are answered only
    /// once that many replicas of the slot's primary have them, so a primary killed after answering loses none
    /// of them when its replica takes over. Fewer acknowledgements within the timeout fail the writes (the store
    /// fails closed). 0 waits for none: a failover may then lose the last writes a primary answered.
    public var replicasToAcknowledge: Int
    /// How long WAIT waits for the replicas; below the command timeout.
    public var replicaTimeoutMilliseconds: Int
    /// Redirections (MOVED, ASK) and TRYAGAIN answers followed for one command before it fails.
    public var maxRedirections: Int

    public init(seeds: [Endpoint], connection: RedisConfiguration = RedisConfiguration(), replicasToAcknowledge: Int = 1,
                replicaTimeoutMilliseconds: Int = 200, maxRedirections: Int = 5) {
        self.seeds = seeds
        self.connection = connection
        self.replicasToAcknowledge = replicasToAcknowledge
        self.replicaTimeoutMilliseconds = replicaTimeoutMilliseconds
        self.maxRedirections = maxRedirections
    }
}
