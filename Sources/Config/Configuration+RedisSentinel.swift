extension Configuration {
    /// `store.redis.sentinel`: find the Redis master through Redis Sentinel instead of a fixed host and port.
    public struct RedisSentinel: Sendable {
        /// host and port of each sentinel, asked in order.
        public var sentinels: [(host: String, port: Int)]
        /// The name the sentinels monitor the master under.
        public var masterName: String
        /// AUTH for the sentinels themselves, if they require one.
        public var password: String?
    }

    /// `{"masterName": "…", "sentinels": [{"host": "…", "port": 26379}, …], "password": "…"}`; at least one sentinel.
    package static func readRedisSentinel(_ reader: JSONFieldReader) -> RedisSentinel {
        reader.rejectUnknownKeys(except: ["masterName", "sentinels", "password"])
        let sentinels = reader.objects("sentinels").map { sentinel in
            sentinel.rejectUnknownKeys(except: ["host", "port"])
            return (host: sentinel.string("host") ?? "", port: sentinel.integer("port", default: 26379, in: 1...65535))
        }
        if sentinels.isEmpty { reader.problem(reader.field("sentinels"), "must list at least one sentinel") }
        return RedisSentinel(
            sentinels: sentinels, masterName: reader.string("masterName") ?? "",
            password: reader.string("password", default: "").flatMap { $0.isEmpty ? nil : $0 })
    }
}
