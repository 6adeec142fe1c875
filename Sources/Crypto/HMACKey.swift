internal import CShimsOpenSSL

/// An HMAC-SHA256 key with its inner and outer hash states computed once (RFC 2104 §4), so each tag costs two
/// SHA-256 finishes and no setup. OpenSSL 3's one-shot `HMAC()` looks its algorithm up by name on every call, which
/// costs more than the hashing itself for the short messages attestd authenticates on its hot path; copying EVP
/// contexts instead still allocated three times per tag. The states live in C (`cshims_hmac_sha256_key`), copied
/// onto the stack for each tag.
///
/// `@unchecked Sendable`: the two prepared states are never modified after `init`; each call copies them.
public final class HMACKey: @unchecked Sendable {
    private let states: OpaquePointer

    public init(_ key: some ContiguousBytes) {
        var block = [UInt8](repeating: 0, count: 64)
        key.withUnsafeBytes { bytes in
            if bytes.count > 64 {
                let digest = SHA256.hash(UnsafeRawBufferPointer(bytes))
                block.replaceSubrange(0..<digest.count, with: digest)
            } else {
                block.replaceSubrange(0..<bytes.count, with: bytes)
            }
        }
        // Only when malloc fails, which nothing in attestd survives anyway.
        states = cshims_hmac_sha256_key_new(block)!
    }

    deinit { cshims_hmac_sha256_key_free(states) }

    /// The 32-byte tag of `message`; the same bytes as `HMACSHA256.authenticate(message, key:)`.
    public func authenticate(_ message: some ContiguousBytes) -> [UInt8] {
        message.withUnsafeBytes { message in
            [UInt8](unsafeUninitializedCapacity: SHA256.digestCount) { out, count in
                cshims_hmac_sha256(states, message.baseAddress, message.count, out.baseAddress)
                count = SHA256.digestCount
            }
        }
    }
}
