/// The server-side scripts that make each read-modify-write one atomic step. The single-key ones run unchanged on a
/// Redis Cluster; the combined ones (a challenge and a key in one round trip) and registration (a key and the
/// receipt schedule) touch keys of several slots, so a cluster runs `consume` then a single-key script instead
/// (`RedisClusterStateStore`).
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

    /// KEYS[1] the challenge or token; ARGV its expiry, the second until which it is kept (expiry plus the clock-skew
    /// allowance). Returns 1 the first time, 0 when it was used before or its expiry is at or before the server's
    /// `TIME`: the server's clock judges, so a node whose clock runs behind cannot consume what has already expired,
    /// which `SET NX EXAT <a second already past>` would accept every time (the key is set and dropped at once).
    static let consume = RedisScript(name: "consume", source: """
        \(consumeOnce)
        return 1
        """)

    /// KEYS[1] the challenge, KEYS[2] the key's hash; ARGV challenge expiry and keep-until (as `consume`), then as
    /// `advanceCounter`. Returns {4} when the challenge was used before or has expired (the counter untouched), else
    /// what `advanceCounter` returns.
    static let consumeThenAdvance = RedisScript(name: "consume-advance", source: """
        if tonumber(ARGV[1]) <= tonumber(redis.call('TIME')[1]) then return {4} end
        if not redis.call('SET', KEYS[1], '1', 'NX', 'EXAT', ARGV[2]) then return {4} end
        local state = redis.call('HMGET', KEYS[2], 'counter', 'revoked')
        if not state[1] then return {3} end
        if state[2] == '1' then return {2} end
        local stored = tonumber(state[1])
        if stored >= tonumber(ARGV[3]) then return {1, stored} end
        redis.call('HSET', KEYS[2], 'counter', ARGV[3], 'last_seen', ARGV[4])
        return {0}
        """)

    /// KEYS[1] the challenge, KEYS[2] the key's hash, KEYS[3] the receipt refresher's schedule; ARGV challenge
    /// expiry and keep-until (as `consume`), then as `registerKey` (the schedule likewise). Returns 0 when the
    /// challenge was used before or has expired (nothing registered), else 1.
    static let consumeThenRegister = RedisScript(name: "consume-register", source: """
        \(consumeOnce)
        if redis.call('EXISTS', KEYS[2]) == 0 then
          redis.call('HSET', KEYS[2], 'first_seen', ARGV[6], 'counter', ARGV[8], 'revoked', ARGV[9])
        end
        if ARGV[10] == '1' then redis.call('ZADD', KEYS[3], 'NX', 0, KEYS[2]) end
        redis.call('HSET', KEYS[2], 'app', ARGV[3], 'env', ARGV[4], 'public_key', ARGV[5], 'last_seen', ARGV[7])
        if ARGV[10] == '1' then redis.call('HSET', KEYS[2], 'receipt', ARGV[11]) else redis.call('HDEL', KEYS[2], 'receipt') end
        if ARGV[12] == '1' then redis.call('HSET', KEYS[2], 'risk', ARGV[13]) else redis.call('HDEL', KEYS[2], 'risk') end
        return 1
        """)

    /// The consume-once step that `consume` and `consumeThenRegister` start with (KEYS[1], ARGV[1] expiry, ARGV[2]
    /// keep-until): returns 0 from the script for an expired or used record. Scripts replicate their effects (Redis
    /// 5 and later), so reading `TIME` before a write is allowed.
    private static let consumeOnce = """
        if tonumber(ARGV[1]) <= tonumber(redis.call('TIME')[1]) then return 0 end
        if not redis.call('SET', KEYS[1], '1', 'NX', 'EXAT', ARGV[2]) then return 0 end
        """

    static let all = [advanceCounter, registerKey, revokeKey, consume, consumeThenAdvance, consumeThenRegister]

    init(name: String, source: String) {
        self.name = name
        self.source = source
    }
}
