/// How `RedisStateStore` reaches its server. attestd's configuration maps its JSON `store.redis` onto this.
public struct RedisConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// ACL user for `AUTH username password` (Redis 6+); nil sends `AUTH password`.
    public var username: String?
    /// Sent with AUTH on every new connection; nil sends no AUTH.
    public var password: String?
    /// Selected with SELECT on every new connection.
    public var database: Int
    /// Put in front of every key, so several deployments can share one server.
    public var keyPrefix: String
    /// The most connections open at once; a call waits for a free one up to `commandTimeoutMilliseconds`.
    public var poolSize: Int
    /// The longest a new connection may take: TCP connect, and with TLS the handshake (name resolution excepted).
    public var connectTimeoutMilliseconds: Int
    /// The longest a command may take to be written and answered; beyond it the call fails and the connection is
    /// dropped.
    public var commandTimeoutMilliseconds: Int
    /// After a failed connection attempt, new attempts wait this long, doubling per failure up to the maximum;
    /// calls made meanwhile fail at once instead of piling up on a dead server.
    public var reconnectBackoffMilliseconds: Int
    public var maxReconnectBackoffMilliseconds: Int
    /// TLS options; nil speaks plain TCP.
    public var tls: RedisTLSConfiguration?
    /// When set, the master is found through these sentinels and `host` and `port` are not used.
    public var sentinel: RedisSentinelConfiguration?
    /// How long past its expiry a consumed challenge or token is kept (`ExpiryRule`).
    public var clockSkewSeconds: Int64 = ExpiryRule.defaultClockSkewSeconds

    public init(host: String = "127.0.0.1", port: Int = 6379, username: String? = nil, password: String? = nil,
                database: Int = 0, keyPrefix: String = "attestd:", poolSize: Int = 8,
                connectTimeoutMilliseconds: Int = 500, commandTimeoutMilliseconds: Int = 1_000,
                reconnectBackoffMilliseconds: Int = 50, maxReconnectBackoffMilliseconds: Int = 2_000,
                tls: RedisTLSConfiguration? = nil, sentinel: RedisSentinelConfiguration? = nil) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.keyPrefix = keyPrefix
        self.poolSize = poolSize
        self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        self.commandTimeoutMilliseconds = commandTimeoutMilliseconds
        self.reconnectBackoffMilliseconds = reconnectBackoffMilliseconds
        self.maxReconnectBackoffMilliseconds = maxReconnectBackoffMilliseconds
        self.tls = tls
        self.sentinel = sentinel
    }
}
