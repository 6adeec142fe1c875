import Synchronization

/// State split into shards that are locked independently, each holding the entries whose key hashes to it.
///
/// One lock around one big hash table makes every caller wait while the table grows: a Swift `Set` or `Dictionary`
/// rehashes every entry when it doubles. With a few hundred thousand consumed challenges that took 35 ms, and every
/// verifier thread waited for the lock meanwhile: once per open-loop bench phase, enough to set its p99. Split 64
/// ways, a table grows in 1/64 of the time, under a lock that only the callers with keys in that shard need.
final class Sharded<Shard: Sendable>: Sendable {
    private final class Box: Sendable {
        let lock: Mutex<Shard>
        init(_ shard: consuming sending Shard) { lock = Mutex(shard) }
    }

    private let boxes: [Box]
    private let shift: Int

    /// - Parameter count: shards, a power of two.
    init(count: Int = 64, _ make: () -> sending Shard) {
        precondition(count > 0 && count & (count - 1) == 0, "shard count must be a power of two")
        boxes = (0..<count).map { _ in Box(make()) }
        shift = UInt.bitWidth - count.trailingZeroBitCount
    }

    /// Runs `body` with the shard that holds `key`, locked.
    func withLock<Key: Hashable, Result: Sendable>(for key: Key, _ body: (inout sending Shard) -> sending Result) -> Result {
        var hasher = Hasher()
        hasher.combine(key)
        // The hash's top bits pick the shard: the tables inside hash with their own seeds, but their buckets come
        // from the low bits, which a shard's keys would otherwise all share.
        let index = shift == UInt.bitWidth ? 0 : Int(UInt(bitPattern: hasher.finalize()) >> UInt(shift))
        return boxes[index].lock.withLock(body)
    }

    /// Runs `body` with each shard in turn, locked, and returns its results in shard order.
    func map<Result: Sendable>(_ body: (inout sending Shard) -> sending Result) -> [Result] {
        boxes.map { $0.lock.withLock(body) }
    }
}
