/// Redis Sentinel: instead of a fixed host, the store asks the sentinels which server is the master of
/// `masterName` each time it opens a connection, so after a failover (the master's connections fail, or it answers
/// READONLY once demoted) the next connection goes to the promoted replica.
public struct RedisSentinelConfiguration: Sendable, Equatable {
    /// One sentinel's address.
    public struct Endpoint: Sendable, Equatable {
        public var host: String
        public var port: Int

        public init(host: String, port: Int = 26379) {
            self.host = host
            self.port = port
        }
    }

    /// Asked in order until one answers; any one of them knows the current master.
    public var sentinels: [Endpoint]
    /// The name the sentinels monitor the master under (`sentinel monitor <name> …`).
    public var masterName: String
    /// Sent with AUTH to the sentinels when set (`requirepass` in sentinel.conf); the master's own credentials are
    /// `RedisConfiguration.username` and `password`.
    public var password: String?

    public init(sentinels: [Endpoint], masterName: String, password: String? = nil) {
        self.sentinels = sentinels
        self.masterName = masterName
        self.password = password
    }
}
