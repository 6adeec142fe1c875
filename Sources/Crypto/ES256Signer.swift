internal import CShims

/// ES256 signatures over SHA-256 digests with nonces prepared in batches (`cshims_es256_sign`): the nonce's two
/// inversions, about half of an ECDSA signature, are shared by eight signatures. Safe to use from many threads.
final class ES256Signer: @unchecked Sendable {
    /// `cshims_es256_signer *`, owned; its pool has a lock of its own.
    private let signer: OpaquePointer

    /// A signer for `key` (`EVP_PKEY *` holding a P-256 private key), or nil for any other key.
    init?(key: OpaquePointer) {
        guard let signer = cshims_es256_signer_new(UnsafeMutableRawPointer(key)) else { return nil }
        self.signer = signer
    }

    deinit { cshims_es256_signer_free(signer) }

    /// r ‖ s of `digest` (32 bytes), or nil when OpenSSL failed.
    func sign(digest: UnsafePointer<UInt8>) -> [UInt8]? {
        var failed = false
        let signature = [UInt8](unsafeUninitializedCapacity: 64) { out, initialized in
            failed = cshims_es256_sign(signer, digest, out.baseAddress!) != 1
            initialized = 64
        }
        return failed ? nil : signature
    }
}
