internal import COpenSSL
internal import CShimsOpenSSL

/// A public key held by OpenSSL (EC P-256 or P-384 in this project), used to verify signatures.
///
/// Every verification is OpenSSL's (`EVP_PKEY_verify`, through the shared libcrypto). Keeping a parsed key, as
/// `PublicKeyCache` and the trust store do, spares the parsing and the context setup, never the check itself.
///
/// It is `@unchecked Sendable` because a key is never modified after it is built, and OpenSSL 3 allows one key to be
/// used by several verifications at once.
public final class PublicKey: @unchecked Sendable {
    let pointer: OpaquePointer
    /// Verification contexts over `pointer`, one pool per digest, made on first use.
    private let sha256Verifiers: PKeyContextPool
    private let sha384Verifiers: PKeyContextPool

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
        let key = KeyPointer(pointer: pointer)
        sha256Verifiers = PKeyContextPool { PublicKey.makeVerifier(key.pointer, digest: SignatureDigest.sha256Algorithm) }
        sha384Verifiers = PKeyContextPool { PublicKey.makeVerifier(key.pointer, digest: SignatureDigest.sha384Algorithm) }
    }

    deinit { EVP_PKEY_free(pointer) }

    /// A P-256 key from its X9.62 uncompressed point (`04 || X || Y`, 65 bytes); points off the curve are refused.
    public convenience init(p256UncompressedPoint point: [UInt8]) throws(CryptoError) {
        guard point.count == 65, point[0] == 0x04 else {
            throw CryptoError(.malformedKey, "a P-256 point is 65 bytes starting with 04, got \(point.count) bytes")
        }
        OpenSSLErrorQueue.clear()
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw OpenSSLErrorQueue.error(.internalFailure, "no EC key management")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer? = nil
        let status: Int32 = "prime256v1".withCString { group in
            "group".withCString { groupName in
                "pub".withCString { pubName in
                    var point = point
                    return point.withUnsafeMutableBytes { raw in
                        var params = [
                            OSSL_PARAM_construct_utf8_string(groupName, UnsafeMutablePointer(mutating: group), 0),
                            OSSL_PARAM_construct_octet_string(pubName, raw.baseAddress, raw.count),
                            OSSL_PARAM_construct_end(),
                        ]
                        guard EVP_PKEY_fromdata_init(context) == 1 else { return 0 }
                        // EVP_PKEY_PUBLIC_KEY: domain parameters plus the public key (a macro Swift cannot import).
                        return EVP_PKEY_fromdata(context, &key, Self.publicKeySelection, &params)
                    }
                }
            }
        }
        guard status == 1, let key else {
            throw OpenSSLErrorQueue.error(.malformedKey, "not a point on P-256")
        }
        self.init(taking: key)
    }

    /// A key from a DER SubjectPublicKeyInfo.
    public convenience init(subjectPublicKeyInfoDER der: [UInt8]) throws(CryptoError) {
        OpenSSLErrorQueue.clear()
        let key: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let key else { throw OpenSSLErrorQueue.error(.malformedKey, "not a DER SubjectPublicKeyInfo") }
        self.init(taking: key)
    }

    /// A key from PEM text (`-----BEGIN PUBLIC KEY-----`, a SubjectPublicKeyInfo).
    public convenience init(pemEncoded pem: String) throws(CryptoError) {
        OpenSSLErrorQueue.clear()
        let bytes = Array(pem.utf8)
        let key: OpaquePointer? = bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PUBKEY(bio, nil, nil, nil)
        }
        guard let key else { throw OpenSSLErrorQueue.error(.malformedKey, "no PEM public key") }
        self.init(taking: key)
    }

    /// The EC point in X9.62 form as the key holds it (65 bytes `04 || X || Y` for an uncompressed P-256 key).
    public var ecPoint: [UInt8]? {
        var length = 0
        guard EVP_PKEY_get_octet_string_param(pointer, "pub", nil, 0, &length) == 1, length > 0 else { return nil }
        var point = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_get_octet_string_param(pointer, "pub", &point, length, &length) == 1 else { return nil }
        return Array(point.prefix(length))
    }

    /// The curve's short name (`prime256v1`, `secp384r1`), or nil for keys that are not EC.
    public var curveName: String? {
        var buffer = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(pointer, "group", &buffer, buffer.count, &length) == 1 else { return nil }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The DER SubjectPublicKeyInfo.
    public var subjectPublicKeyInfoDER: [UInt8] {
        var output: UnsafeMutablePointer<UInt8>? = nil
        let count = i2d_PUBKEY(pointer, &output)
        guard count > 0, let output else { return [] }
        defer { CRYPTO_free(output, #fileID, #line) }
        return Array(UnsafeBufferPointer(start: output, count: Int(count)))
    }

    /// True when `signature` (DER ECDSA) verifies over `message`, hashed with `digest` as part of the signature.
    public func isValidSignature(
        _ signature: some ContiguousBytes, for message: some ContiguousBytes, digest: SignatureDigest = .sha256
    ) -> Bool {
        OpenSSLErrorQueue.clear()
        let verifiers = digest == .sha384 ? sha384Verifiers : sha256Verifiers
        // The digest here, then OpenSSL's verification of the signature over it with a context set up once: what
        // EVP_DigestVerify checks, without OpenSSL 3.0's per-call algorithm fetches. OpenSSL refuses a signature
        // that is not exactly DER (it re-encodes and compares), r or s outside [1, n-1], and trailing bytes.
        let result = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: SignatureDigest.maxCount) { hash -> Int32 in
            let hashCount = digest.hash(message, into: hash)
            return verifiers.withContext { context in
                signature.withUnsafeBytes { sig in
                    EVP_PKEY_verify(
                        context, sig.baseAddress?.assumingMemoryBound(to: UInt8.self), sig.count, hash.baseAddress,
                        hashCount)
                }
            } ?? 0
        }
        // A failed verification leaves entries on the queue; they say nothing the Bool does not.
        if result != 1 { OpenSSLErrorQueue.clear() }
        return result == 1
    }

    /// A context ready to verify signatures by `key` over digests made with `digest`.
    private static func makeVerifier(_ key: OpaquePointer, digest: OpaquePointer?) -> OpaquePointer? {
        guard let digest, let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else { return nil }
        guard EVP_PKEY_verify_init(context) == 1, EVP_PKEY_CTX_set_signature_md(context, digest) == 1 else {
            EVP_PKEY_CTX_free(context)
            return nil
        }
        return context
    }

    /// Runs one verification setup so that OpenSSL converts a key decoded the legacy way (as `X509_get_pubkey`
    /// returns it) to its provider form now, while one thread holds it, rather than lazily under concurrent use.
    func prepareForSharing() {
        _ = isValidSignature([UInt8](), for: [UInt8](), digest: .sha256)
        _ = isValidSignature([UInt8](), for: [UInt8](), digest: .sha384)
    }

    private static let publicKeySelection: Int32 = 0x86
}

/// The digest an ECDSA signature is computed over.
public struct SignatureDigest: Sendable, Hashable {
    let name: String
    /// SHA-256 (ES256, ecdsa-with-SHA256).
    public static let sha256 = SignatureDigest(name: "SHA256")
    /// SHA-384 (ecdsa-with-SHA384).
    public static let sha384 = SignatureDigest(name: "SHA384")

    /// The longest digest, in bytes (SHA-384's).
    static let maxCount = 48

    /// Hashes `message` into `hash` (room for `maxCount` bytes) and returns the digest's length.
    func hash(_ message: some ContiguousBytes, into hash: UnsafeMutableBufferPointer<UInt8>) -> Int {
        message.withUnsafeBytes { message -> Int in
            if self == .sha384 {
                cshims_sha384(message.baseAddress, message.count, hash.baseAddress)
                return 48
            }
            cshims_sha256(message.baseAddress, message.count, hash.baseAddress)
            return 32
        }
    }

    /// The digests fetched from the provider once, for the verification contexts.
    nonisolated(unsafe) static let sha256Algorithm: OpaquePointer? = SHA256.algorithm
    nonisolated(unsafe) static let sha384Algorithm: OpaquePointer? = EVP_MD_fetch(nil, "SHA384", nil)
}

/// The `EVP_PKEY *` a verification pool builds its contexts over; each context holds its own reference.
private struct KeyPointer: @unchecked Sendable {
    let pointer: OpaquePointer
}
