internal import COpenSSL

/// SHA-256, the digest App Attest uses everywhere (rpIdHash, nonce, keyId, clientDataHash).
public enum SHA256 {
    public static let digestCount = 32

    /// SHA-256 fetched from the provider once: passing `EVP_sha256()` makes OpenSSL 3 look it up on every init.
    nonisolated(unsafe) static let algorithm: OpaquePointer = EVP_MD_fetch(nil, "SHA256", nil)!

    /// The SHA-256 digest of `bytes`.
    public static func hash(_ bytes: some ContiguousBytes) -> [UInt8] {
        bytes.withUnsafeBytes { raw in
            [UInt8](unsafeUninitializedCapacity: digestCount) { out, count in
                _ = COpenSSL.SHA256(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, out.baseAddress)
                count = digestCount
            }
        }
    }

    /// The SHA-256 digest of `first || second`, without building the concatenation.
    public static func hash(_ first: some ContiguousBytes, _ second: some ContiguousBytes) -> [UInt8] {
        let context = EVP_MD_CTX_new()
        defer { EVP_MD_CTX_free(context) }
        EVP_DigestInit_ex(context, algorithm, nil)
        first.withUnsafeBytes { _ = EVP_DigestUpdate(context, $0.baseAddress, $0.count) }
        second.withUnsafeBytes { _ = EVP_DigestUpdate(context, $0.baseAddress, $0.count) }
        return [UInt8](unsafeUninitializedCapacity: digestCount) { out, count in
            var length: UInt32 = 0
            EVP_DigestFinal_ex(context, out.baseAddress, &length)
            count = Int(length)
        }
    }
}
