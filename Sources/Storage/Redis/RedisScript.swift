/// The server-side scripts that make each read-modify-write one atomic step. The single-key ones would run unchanged
/// on a Redis Cluster; the two combined ones (a challenge and a key in one round trip) touch two keys, which a
/// Cluster would need in one hash slot (attestd supports a single Redis primary today).
struct RedisScript: Sendable {
    let source: String
    /// The name under which the store keeps the SHA1 that SCRIPT LOAD answered, for EVALSHA.
    let name: String

    /// KEYS[1] the key's hash; ARGV counter, now. Returns {0} advanced, {1, stored} not increasing, {2} revoked,
    /// {3} unknown key.
    static let advanceCounter = RedisScript(name: "advance", source: """
        local state = redis.call('HMGET', KEYS[1], 'counter', 'revoked')
        if not state[1] then return {3} end
        if state[2] == '1' then return {2} end
        local stored = tonumber(state[1])
        if stored >= tonumber(ARGV[1]) then return {1, stored} end
        redis.call('HSET', KEYS[1], 'counter', ARGV[1], 'last_seen', ARGV[2])
        return {0}
        """)

    /// KEYS[1] the key's hash, KEYS[2] the receipt refresher's schedule; ARGV app, environment, public key, first
    /// seen, last seen, counter, revoked, has receipt, receipt, has risk metric, risk metric. A re-attested key keeps
    /// counter, revoked and first seen. A key with a receipt that is not in the refresh schedule is due at once.
    static let registerKey = RedisScript(name: "register", source: """
        if redis.call('EXISTS', KEYS[1]) == 0 then
          redis.call('HSET', KEYS[1], 'first_seen', ARGV[4], 'counter', ARGV[6], 'revoked', ARGV[7])
        end
        if ARGV[8] == '1' then redis.call('ZADD', KEYS[2], 'NX', 0, KEYS[1]) end
        redis.call('HSET', KEYS[1], 'app', ARGV[1], 'env', ARGV[2], 'public_key', ARGV[3], 'last_seen', ARGV[5])
        if ARGV[8] == '1' then redis.call('HSET', KEYS[1], 'receipt', ARGV[9]) else redis.call('HDEL', KEYS[1], 'receipt') end
        if ARGV[10] == '1' then redis.call('HSET', KEYS[1], 'risk', ARGV[11]) else redis.call('HDEL', KEYS[1], 'risk') end
        return 1
        """)

    /// KEYS[1] the key's hash; ARGV now. Returns 1, or 0 for an unknown key.
    static let revokeKey = RedisScript(name: "revoke", source: """
        if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
        redis.call('HSET', KEYS[1], 'revoked', '1', 'last_seen', ARGV[1])
        return 1
        """)

    /// KEYS[1] the challenge, KEYS[2] the key's hash; ARGV challenge expiry, then as `advanceCounter`. Returns {4}
    /// when the challenge was used before (the counter untouched), else what `advanceCounter` returns.
    static let consumeThenAdvance = RedisScript(name: "consume-advance", source: """
        if not redis.call('SET', KEYS[1], '1', 'NX', 'EXAT', ARGV[1]) then return {4} end
        local state = redis.call('HMGET', KEYS[2], 'counter', 'revoked')
        if not state[1] then return {3} end
        if state[2] == '1' then return {2} end
        local stored = tonumber(state[1])
        if stored >= tonumber(ARGV[2]) then return {1, stored} end
        redis.call('HSET', KEYS[2], 'counter', ARGV[2], 'last_seen', ARGV[3])
        return {0}
        """)

    /// KEYS[1] the challenge, KEYS[2] the key's hash, KEYS[3] the receipt refresher's schedule; ARGV challenge
    /// expiry, then as `registerKey` (the schedule likewise). Returns 0 when the challenge was used before (nothing
    /// registered), else 1.
    static let consumeThenRegister = RedisScript(name: "consume-register", source: """
        if not redis.call('SET', KEYS[1], '1', 'NX', 'EXAT', ARGV[1]) then return 0 end
        if redis.call('EXISTS', KEYS[2]) == 0 then
          redis.call('HSET', KEYS[2], 'first_seen', ARGV[5], 'counter', ARGV[7], 'revoked', ARGV[8])
        end
        if ARGV[9] == '1' then redis.call('ZADD', KEYS[3], 'NX', 0, KEYS[2]) end
        redis.call('HSET', KEYS[2], 'app', ARGV[2], 'env', ARGV[3], 'public_key', ARGV[4], 'last_seen', ARGV[6])
        if ARGV[9] == '1' then redis.call('HSET', KEYS[2], 'receipt', ARGV[10]) else redis.call('HDEL', KEYS[2], 'receipt') end
        if ARGV[11] == '1' then redis.call('HSET', KEYS[2], 'risk', ARGV[12]) else redis.call('HDEL', KEYS[2], 'risk') end
        return 1
        """)

    static let all = [advanceCounter, registerKey, revokeKey, consumeThenAdvance, consumeThenRegister]

    init(name: String, source: String) {
        self.name = name
        self.source = source
    }
}
