import Observability
import Synchronization
import Tokens

/// Tokens whose signature and claims were checked, kept until their `exp` so that a session token costs one
/// signature verification per node rather than one per request.
///
/// Keyed by the token's SHA-256 (the token itself is never kept). Bounded: each of its shards is an LRU of a fixed
/// size, and a lookup locks one shard only, for a hash probe and two link updates, so event loops can consult it
/// without blocking each other for long. An entry found expired is a miss (it is then overwritten or evicted).
/// It knows nothing about consumption: limited-use routes consult the state store every time.
///
/// It is also the metric family `attestd_gateway_token_cache_total{result}` (hit, miss), counted under the shard
/// lock a lookup takes anyway.
final class VerifiedTokenCache: Sendable, MetricFamily {
    private let shards: [ShardBox]
    let capacity: Int

    /// - Parameter capacity: entries in all; 0 disables the cache.
    init(capacity: Int, shardCount: Int = 16) {
        let shardCount = max(1, min(shardCount, capacity))
        self.capacity = capacity
        let perShard = capacity == 0 ? 0 : (capacity + shardCount - 1) / shardCount
        shards = (0..<shardCount).map { _ in ShardBox(capacity: perShard) }
    }

    /// The token cached under `digest`, unless it has expired at `now` (Unix seconds).
    func lookup(_ digest: TokenDigest, now: Int64) -> VerifiedAppCheckToken? {
        guard capacity > 0 else { return nil }
        return shard(digest).state.withLock { $0.lookup(digest, now: now) }
    }

    /// Keeps `token`, evicting the least recently used entry of its shard when full.
    func insert(_ digest: TokenDigest, _ token: VerifiedAppCheckToken) {
        guard capacity > 0 else { return }
        shard(digest).state.withLock { $0.insert(digest, token) }
    }

    /// Entries held (expired ones included until they are evicted or overwritten).
    var count: Int { shards.reduce(0) { total, shard in total + shard.state.withLock { $0.count } } }

    /// Lookups that found a live token, and lookups that did not (a disabled cache counts nothing).
    var hitsAndMisses: (hits: Int, misses: Int) {
        shards.reduce((0, 0)) { total, shard in
            let counts = shard.state.withLock { ($0.hits, $0.misses) }
            return (total.0 + counts.0, total.1 + counts.1)
        }
    }

    func render(into output: inout String) {
        let (hits, misses) = hitsAndMisses
        output += "# HELP attestd_gateway_token_cache_total Gateway lookups in the verified-token cache, by result.\n"
        output += "# TYPE attestd_gateway_token_cache_total counter\n"
        output += "attestd_gateway_token_cache_total{result=\"hit\"} \(hits)\n"
        output += "attestd_gateway_token_cache_total{result=\"miss\"} \(misses)\n"
    }

    private func shard(_ digest: TokenDigest) -> ShardBox {
        shards[Int(truncatingIfNeeded: digest.d % UInt64(shards.count))]
    }

    private final class ShardBox: Sendable {
        let state: Mutex<Shard>
        init(capacity: Int) { state = Mutex(Shard(capacity: capacity)) }
    }

    /// An LRU over slots of one array, linked by index: no allocation once full.
    private struct Shard: Sendable {
        struct Entry: Sendable {
            var digest: TokenDigest
            var token: VerifiedAppCheckToken
            var newer: Int
            var older: Int
        }

        let capacity: Int
        private(set) var hits = 0
        private(set) var misses = 0
        private var slots: [TokenDigest: Int] = [:]
        private var entries: [Entry] = []
        /// Most and least recently used slots; -1 when empty.
        private var newest = -1
        private var oldest = -1

        init(capacity: Int) {
            self.capacity = capacity
            slots.reserveCapacity(capacity)
            entries.reserveCapacity(capacity)
        }

        var count: Int { entries.count }

        mutating func lookup(_ digest: TokenDigest, now: Int64) -> VerifiedAppCheckToken? {
            guard let slot = slots[digest], now < entries[slot].token.expiresAt else {
                misses += 1
                return nil
            }
            hits += 1
            touch(slot)
            return entries[slot].token
        }

        mutating func insert(_ digest: TokenDigest, _ token: VerifiedAppCheckToken) {
            if let slot = slots[digest] {
                entries[slot].token = token
                touch(slot)
                return
            }
            let slot: Int
            if entries.count < capacity {
                slot = entries.count
                entries.append(Entry(digest: digest, token: token, newer: -1, older: -1))
                link(slot)
            } else {
                slot = oldest
                slots[entries[slot].digest] = nil
                entries[slot].digest = digest
                entries[slot].token = token
                touch(slot)
            }
            slots[digest] = slot
        }

        /// Makes `slot` the most recently used.
        private mutating func touch(_ slot: Int) {
            guard slot != newest else { return }
            let newer = entries[slot].newer
            let older = entries[slot].older
            if newer != -1 { entries[newer].older = older }
            if older != -1 { entries[older].newer = newer } else { oldest = newer }
            link(slot)
        }

        /// Puts an unlinked `slot` at the newest end.
        private mutating func link(_ slot: Int) {
            entries[slot].older = newest
            entries[slot].newer = -1
            if newest != -1 { entries[newest].newer = slot }
            newest = slot
            if oldest == -1 { oldest = slot }
        }
    }
}
