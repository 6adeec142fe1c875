import Synchronization
import Tokens

/// Tokens whose signature and claims were checked, kept until their `exp` so that a session token costs one
/// signature verification per node rather than one per request.
///
/// Keyed by the token's SHA-256 (the token itself is never kept). Bounded: each of its shards is an LRU of a fixed
/// size, and a lookup locks one shard only, for a hash probe and two link updates, so event loops can consult it
/// without blocking each other for long. An entry found expired is a miss (it is then overwritten or evicted).
/// It knows nothing about consumption: limited-use routes consult the state store every time.
final class VerifiedTokenCache: Sendable {
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
            guard let slot = slots[digest] else { return nil }
            guard now < entries[slot].token.expiresAt else { return nil }
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
