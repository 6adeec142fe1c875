extension RedisScript {
    /// KEYS[1] the receipt refresher's schedule (a sorted set of key-hash names by next refresh time); ARGV now,
    /// limit, lease end, owner. Claims up to `limit` due keys: each is moved to the lease's end and its hash names
    /// the owner. Revoked keys and keys without a receipt leave the schedule. Returns, per claimed key, its hash
    /// name, app, environment, public key and receipt. The key hashes are named by the schedule, not in KEYS:
    /// like the combined scripts, this needs a single Redis primary.
    static let claimReceiptRefreshes = RedisScript(name: "receipt-claim", source: """
        local limit = tonumber(ARGV[2])
        local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, limit)
        local claimed = {}
        for _, member in ipairs(due) do
          local record = redis.call('HMGET', member, 'revoked', 'receipt', 'app', 'env', 'public_key')
          if not record[2] or not record[3] or record[1] == '1' then
            redis.call('ZREM', KEYS[1], member)
          else
            redis.call('ZADD', KEYS[1], 'XX', ARGV[3], member)
            redis.call('HSET', member, 'refresh_owner', ARGV[4])
            for _, value in ipairs({member, record[3], record[4], record[5], record[2]}) do
              table.insert(claimed, value)
            end
          end
        end
        return claimed
        """)

    /// KEYS[1] the schedule; ARGV cursor, match pattern, count. One SCAN step over the key hashes: each active key
    /// with a receipt that is not scheduled is added, due at once. Returns {next cursor, added}.
    static let scheduleUnscheduled = RedisScript(name: "receipt-backfill", source: """
        local step = redis.call('SCAN', ARGV[1], 'MATCH', ARGV[2], 'COUNT', tonumber(ARGV[3]))
        local added = 0
        for _, name in ipairs(step[2]) do
          if redis.call('TYPE', name).ok == 'hash' then
            local record = redis.call('HMGET', name, 'receipt', 'revoked')
            if record[1] and record[2] ~= '1' then
              added = added + redis.call('ZADD', KEYS[1], 'NX', 0, name)
            end
          end
        end
        return {step[1], added}
        """)

    /// KEYS[1] the schedule, KEYS[2] the key's hash; ARGV owner, next refresh, checked at, status, has receipt,
    /// receipt, has risk metric, risk metric. Returns 0 (nothing written) when the owner no longer holds the lease.
    static let completeReceiptRefresh = RedisScript(name: "receipt-complete", source: """
        if redis.call('HGET', KEYS[2], 'refresh_owner') ~= ARGV[1] then return 0 end
        redis.call('HDEL', KEYS[2], 'refresh_owner')
        redis.call('HSET', KEYS[2], 'refresh_checked', ARGV[3], 'refresh_status', ARGV[4])
        if ARGV[5] == '1' then redis.call('HSET', KEYS[2], 'receipt', ARGV[6]) end
        if ARGV[7] == '1' then redis.call('HSET', KEYS[2], 'risk', ARGV[8]) end
        redis.call('ZADD', KEYS[1], ARGV[2], KEYS[2])
        return 1
        """)
}
