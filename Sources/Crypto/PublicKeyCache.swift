import Synchronization

/// P-256 keys already built from their points, so that a key seen again is not rebuilt.
///
/// OpenSSL 3.0 builds a fresh EC group for every imported key, which costs about half an ECDSA verification:
/// keeping the keys of recently active devices (and of receipt signers) takes that cost off the hot path, and a kept
/// key verifies with its own table of multiples from its second verification on (6 KB; see `PublicKey`). The cache
/// is bounded; when full, an arbitrary entry makes room (no ordering to maintain on the hot path).
public final class PublicKeyCache: Sendable {
    /// The most keys kept; 0 disables the cache.
    public let capacity: Int
    private let keys: Mutex<[[UInt8]: PublicKey]>

    public init(capacity: Int) {
        self.capacity = max(0, capacity)
        self.keys = Mutex([:])
    }

    /// The key for `point` (65 bytes, `04 || X || Y`), built on first use; points off the curve are refused.
    public func key(p256UncompressedPoint point: [UInt8]) throws(CryptoError) -> PublicKey {
        if capacity > 0, let key = keys.withLock({ $0[point] }) { return key }
        let key = try PublicKey(p256UncompressedPoint: point)
        if capacity > 0 {
            let capacity = self.capacity
            keys.withLock { keys in
                if keys.count >= capacity, let victim = keys.keys.first { keys.removeValue(forKey: victim) }
                keys[point] = key
            }
        }
        return key
    }

    /// How many keys are cached.
    public var count: Int { keys.withLock { $0.count } }
}
