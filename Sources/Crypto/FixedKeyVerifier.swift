internal import CShims

/// Verifies ECDSA signatures made by one P-384 key that signs many certificates (a CA's), about five times as fast
/// as `PublicKey.isValidSignature`: multiples of the curve's generator and of the key's point are computed once
/// (`cshims_fixed_key_new`: about 30 ms and 5 MB), so that a verification is about 98 point additions, with no
/// doubling and no field inversion. The checks are ECDSA's, unchanged (see `shims_fixed_key.c`).
///
/// `@unchecked Sendable`: the tables are never modified after they are built, and verifications only read them.
public final class FixedKeyVerifier: @unchecked Sendable {
    private let tables: OpaquePointer

    /// The tables for `key`; nil when it is not a P-384 key (other curves either have fast arithmetic of their own
    /// in OpenSSL 3.0, as P-256 does, or no caller here).
    public init?(_ key: PublicKey) {
        guard let tables = cshims_fixed_key_new(key.pointer) else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        self.tables = tables
    }

    deinit { cshims_fixed_key_free(tables) }

    /// True when `signature` (DER ECDSA) verifies over `message`, hashed with `digest`.
    public func isValidSignature(
        _ signature: some ContiguousBytes, for message: some ContiguousBytes, digest: SignatureDigest
    ) -> Bool {
        let result = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: SignatureDigest.maxCount) { hash -> Int32 in
            let hashCount = digest.hash(message, into: hash)
            return signature.withUnsafeBytes { signature in
                cshims_fixed_key_verify(
                    tables, hash.baseAddress, hashCount, signature.baseAddress?.assumingMemoryBound(to: UInt8.self),
                    signature.count)
            }
        }
        // A failed verification may leave entries on the queue; they say nothing the Bool does not.
        if result != 1 { OpenSSLErrorQueue.clear() }
        return result == 1
    }
}
