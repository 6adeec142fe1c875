internal import COpenSSL
internal import CShimsOpenSSL

/// SHA-256, the digest App Attest uses everywhere (rpIdHash, nonce, keyId, clientDataHash).
public enum SHA256 {
    public static let digestCount = 32

    /// SHA-256 fetched from the provider once, for the signing and verification contexts that name their digest:
    /// passing `EVP_sha256()` makes OpenSSL 3 look it up on every init.
    nonisolated(unsafe) static let algorithm: OpaquePointer = EVP_MD_fetch(nil, "SHA256", nil)!

    /// The SHA-256 digest of `bytes`.
    public static func hash(_ bytes: some ContiguousBytes) -> [UInt8] {
        bytes.withUnsafeBytes { raw in
            [UInt8](unsafeUninitializedCapacity: digestCount) { out, count in
                cshims_sha256(raw.baseAddress, raw.count, out.baseAddress)
                count = digestCount
            }
        }
    }

    /// The SHA-256 digest of `first || second`, without building the concatenation.
    public static func hash(_ first: some ContiguousBytes, _ second: some ContiguousBytes) -> [UInt8] {
        first.withUnsafeBytes { first in
            second.withUnsafeBytes { second in
                [UInt8](unsafeUninitializedCapacity: digestCount) { out, count in
                    cshims_sha256_pair(first.baseAddress, first.count, second.baseAddress, second.count, out.baseAddress)
                    count = digestCount
                }
            }
        }
    }

    /// Writes the SHA-256 digest of `bytes` into `digest` (room for `digestCount` bytes), allocating nothing.
    static func hash(_ bytes: UnsafeRawBufferPointer, into digest: UnsafeMutablePointer<UInt8>) {
        cshims_sha256(bytes.baseAddress, bytes.count, digest)
    }
}
