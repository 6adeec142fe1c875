import Synchronization

/// P-256 keys already built from their points, so that a key seen again is not rebuilt.
///
/// OpenSSL 3.0 builds a fresh EC group for every imported key, which costs about half an ECDSA verification:
/// keeping the parsed keys of recently active devices (and of receipt signers), with their verification contexts,
/// takes that cost off the hot path. The verification itself is OpenSSL's every time. The cache is bounded; when
/// full, an arbitrary entry makes room (no ordering to maintain on the hot path).
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

    /// Whether `signature` (DER ECDSA) verifies over `message` (hashed with SHA-256) under the P-256 key at `point`
    /// (65 bytes, `04 || X || Y`), the key taken from the cache or parsed and kept: the check of an App Attest
    /// assertion and of a receipt's CMS signer. Throws when `point` is not a P-256 point.
    public func isValidSignature(
        _ signature: some ContiguousBytes, for message: some ContiguousBytes, p256UncompressedPoint point: [UInt8]
    ) throws(CryptoError) -> Bool {
        try key(p256UncompressedPoint: point).isValidSignature(signature, for: message, digest: .sha256)
    }

    /// How many keys are cached.
    public var count: Int { keys.withLock { $0.count } }
}
