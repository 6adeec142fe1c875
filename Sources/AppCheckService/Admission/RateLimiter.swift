import Config
import HTTP
import Synchronization

/// One token bucket per key (a client address, an app), all with the same rate. Keys are spread over shards, each
/// behind its own lock, so event loops rarely wait for one another. Memory is bounded: a shard that is full forgets
/// its full buckets (a forgotten key starts full again, so that loses nothing), then, if it must, any one bucket.
final class RateLimiter: Sendable {
    let rate: Configuration.Rate
    private let shards: [Shard]
    private let maxKeysPerShard: Int

    private final class Shard: Sendable {
        let buckets = Mutex<[String: TokenBucket]>([:])
    }

    /// - Parameter maxKeys: the most keys remembered at once (across shards).
    init(rate: Configuration.Rate, maxKeys: Int = 65_536, shardCount: Int = 16) {
        self.rate = rate
        shards = (0..<max(1, shardCount)).map { _ in Shard() }
        maxKeysPerShard = max(1, maxKeys / max(1, shardCount))
    }

    /// Takes one token from `key`'s bucket; false if it has none left at `now` (``MonotonicClock`` nanoseconds).
    func admit(_ key: String, now: UInt64) -> Bool {
        let shard = shards[Int(UInt(bitPattern: key.hashValue) % UInt(shards.count))]
        return shard.buckets.withLock { buckets in
            if buckets[key] == nil, buckets.count >= maxKeysPerShard { evict(from: &buckets, now: now) }
            return buckets[key, default: TokenBucket(
                capacity: Double(rate.burst), refillPerSecond: Double(rate.requestsPerSecond), now: now)].take(now: now)
        }
    }

    /// Keys remembered right now.
    var keyCount: Int { shards.reduce(0) { $0 + $1.buckets.withLock { $0.count } } }

    private func evict(from buckets: inout [String: TokenBucket], now: UInt64) {
        buckets = buckets.filter { !$0.value.isFull(now: now) }
        // Every key is busy (many addresses at once): forget an eighth of them, so that the sweep's cost is paid
        // once per many new keys. A forgotten key starts over with a full burst.
        if buckets.count >= maxKeysPerShard {
            for key in buckets.keys.prefix(max(1, maxKeysPerShard / 8)) { buckets.removeValue(forKey: key) }
        }
    }
}
