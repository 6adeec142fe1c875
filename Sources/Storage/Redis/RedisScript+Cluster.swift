extension RedisScript {
    /// `registerKey` without the receipt schedule, whose key lies in another slot of a cluster: KEYS[1] the key's
    /// hash; ARGV as `registerKey`. A re-attested key keeps counter, revoked and first seen. Returns 1.
    static let registerClusterKey = RedisScript(name: "register-cluster", source: """
        if redis.call('EXISTS', KEYS[1]) == 0 then
          redis.call('HSET', KEYS[1], 'first_seen', ARGV[4], 'counter', ARGV[6], 'revoked', ARGV[7])
        end
        redis.call('HSET', KEYS[1], 'app', ARGV[1], 'env', ARGV[2], 'public_key', ARGV[3], 'last_seen', ARGV[5])
        if ARGV[8] == '1' then redis.call('HSET', KEYS[1], 'receipt', ARGV[9]) else redis.call('HDEL', KEYS[1], 'receipt') end
        if ARGV[10] == '1' then redis.call('HSET', KEYS[1], 'risk', ARGV[11]) else redis.call('HDEL', KEYS[1], 'risk') end
        return 1
        """)
}
