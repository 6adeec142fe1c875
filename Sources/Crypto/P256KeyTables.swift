internal import CShims

/// A P-256 key's multiples, made once, so that verifying its signatures costs about half of OpenSSL's verification:
/// 60 doublings instead of 255, on OpenSSL's own P-256 assembly (see `shims_p256_key.c`). The checks are ECDSA's,
/// unchanged. Worth building for a key that verifies again and again, as an attested device's does: it costs about
/// one verification and holds 6 KB.
///
/// `@unchecked Sendable`: the table is never modified after it is built, and verifications only read it.
final class P256KeyTables: @unchecked Sendable {
    private let tables: OpaquePointer

    /// The table for `key`; nil when it is not an uncompressed P-256 key, or on a CPU without OpenSSL's x86-64 P-256
    /// assembly.
    init?(_ key: OpaquePointer) {
        guard let tables = cshims_p256_key_new(key) else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        self.tables = tables
    }

    deinit { cshims_p256_key_free(tables) }

    /// True when `signature` (DER ECDSA) verifies over `hash`, the message's digest.
    func isValidSignature(_ signature: UnsafeRawBufferPointer, hash: UnsafeBufferPointer<UInt8>) -> Bool {
        cshims_p256_key_verify(
            tables, hash.baseAddress, hash.count, signature.baseAddress?.assumingMemoryBound(to: UInt8.self),
            signature.count) == 1
    }
}
