internal import COpenSSL

/// An HMAC-SHA256 key with its inner and outer hash states computed once (RFC 2104 §4), so each tag costs two
/// SHA-256 finishes and no setup. OpenSSL 3's one-shot `HMAC()` looks its algorithm up by name on every call, which
/// costs more than the hashing itself for the short messages attestd authenticates on its hot path.
///
/// `@unchecked Sendable`: the two prepared states are never modified after `init`; each call copies them into a
/// context of its own.
public final class HMACKey: @unchecked Sendable {
    private let inner: OpaquePointer
    private let outer: OpaquePointer

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
        inner = Self.prepared(block.map { $0 ^ 0x36 })
        outer = Self.prepared(block.map { $0 ^ 0x5c })
    }

    deinit {
        EVP_MD_CTX_free(inner)
        EVP_MD_CTX_free(outer)
    }

    /// The 32-byte tag of `message`; the same bytes as `HMACSHA256.authenticate(message, key:)`.
    public func authenticate(_ message: some ContiguousBytes) -> [UInt8] {
        let context = EVP_MD_CTX_new()
        defer { EVP_MD_CTX_free(context) }
        var innerDigest = [UInt8](repeating: 0, count: SHA256.digestCount)
        var length: UInt32 = 0
        EVP_MD_CTX_copy_ex(context, inner)
        message.withUnsafeBytes { _ = EVP_DigestUpdate(context, $0.baseAddress, $0.count) }
        EVP_DigestFinal_ex(context, &innerDigest, &length)
        EVP_MD_CTX_copy_ex(context, outer)
        EVP_DigestUpdate(context, innerDigest, innerDigest.count)
        return [UInt8](unsafeUninitializedCapacity: SHA256.digestCount) { out, count in
            EVP_DigestFinal_ex(context, out.baseAddress, &length)
            count = Int(length)
        }
    }

    /// A SHA-256 state that has absorbed one 64-byte pad block.
    private static func prepared(_ pad: [UInt8]) -> OpaquePointer {
        let context = EVP_MD_CTX_new()!
        EVP_DigestInit_ex(context, SHA256.algorithm, nil)
        EVP_DigestUpdate(context, pad, pad.count)
        return context
    }
}
