import Basics
internal import COpenSSL

/// A public key that checks JWS signatures: RSA (2048 bits or more) for RS256, or EC P-256 for ES256.
/// Immutable and safe to use from many threads at once: every verification gets its own OpenSSL context.
public final class JWSPublicKey: @unchecked Sendable {
    /// `EVP_PKEY *`, owned (one reference).
    let key: OpaquePointer
    /// The one algorithm this key verifies.
    public let algorithm: SigningAlgorithm
    /// The key as a JWK, with its RFC 7638 thumbprint as `kid`.
    public let jwk: JWK

    /// Reads a PEM `PUBLIC KEY` (SubjectPublicKeyInfo) or the public key of a PEM `CERTIFICATE`.
    public convenience init(pem: String) throws(PublicKeyError) {
        OpenSSLErrorQueue.clear()
        if let key = PEM.withReadBIO(pem, { PEM_read_bio_PUBKEY($0, nil, { _, _, _, _ in 0 }, nil) }) ?? nil {
            try self.init(owning: key)
            return
        }
        OpenSSLErrorQueue.clear()
        let certificate = PEM.withReadBIO(pem, { PEM_read_bio_X509($0, nil, { _, _, _, _ in 0 }, nil) }) ?? nil
        guard let certificate else {
            throw PublicKeyError.unreadable.with(detail: OpenSSLErrorQueue.drain())
        }
        defer { X509_free(certificate) }
        guard let key = X509_get_pubkey(certificate) else { throw PublicKeyError.unreadable.with(detail: OpenSSLErrorQueue.drain()) }
        try self.init(owning: key)
    }

    /// Takes ownership of one reference to `key`, freeing it if the key is refused.
    init(owning key: OpaquePointer) throws(PublicKeyError) {
        guard let (algorithm, jwk) = Self.describe(key) else {
            let weak = EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA
            EVP_PKEY_free(key)
            throw weak ? .tooWeak : .unsupported
        }
        self.key = key
        self.algorithm = algorithm
        self.jwk = jwk
    }

    deinit { EVP_PKEY_free(key) }

    /// True when `signature` is this key's JWS signature of `message` (ES256: the 64-byte r‖s).
    public func isValidSignature(_ signature: some ContiguousBytes, for message: some ContiguousBytes) -> Bool {
        let encoded: [UInt8]
        switch algorithm {
        case .rs256: encoded = signature.withUnsafeBytes { Array($0) }
        case .es256:
            guard let der = SigningSignatureEncoding.der(fromRaw: signature) else { return false }
            encoded = der
        }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        let ok = message.withUnsafeBytes { message in
            encoded.withUnsafeBufferPointer { signature in
                EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1
                    && EVP_DigestVerify(
                        context, signature.baseAddress, signature.count,
                        message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count) == 1
            }
        }
        // A failed verification leaves reasons on this thread's queue; they are expected, not news.
        if !ok { OpenSSLErrorQueue.clear() }
        return ok
    }

    /// The key as a PEM `PUBLIC KEY` (SubjectPublicKeyInfo).
    public func pem() -> String {
        PEM.written { PEM_write_bio_PUBKEY($0, key) } ?? ""
    }

    /// The algorithm and JWK of `key`, or nil unless it is RSA of 2048+ bits or EC on P-256.
    static func describe(_ key: OpaquePointer) -> (SigningAlgorithm, JWK)? {
        switch EVP_PKEY_get_base_id(key) {
        case EVP_PKEY_RSA:
            guard EVP_PKEY_get_bits(key) >= 2048,
                  let n = bigNumberParameter(key, "n", width: nil), let e = bigNumberParameter(key, "e", width: nil)
            else { return nil }
            return (.rs256, .rsa(n: Base64.url.encode(n), e: Base64.url.encode(e)))
        case EVP_PKEY_EC:
            var name = [CChar](repeating: 0, count: 64)
            var length = 0
            guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1,
                  String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) == "prime256v1",
                  let x = bigNumberParameter(key, "qx", width: 32), let y = bigNumberParameter(key, "qy", width: 32)
            else { return nil }
            return (.es256, .p256(x: Base64.url.encode(x), y: Base64.url.encode(y)))
        default:
            return nil
        }
    }

    /// A big-number parameter of `key` as big-endian bytes, minimal or left-padded to `width`.
    private static func bigNumberParameter(_ key: OpaquePointer, _ name: String, width: Int?) -> [UInt8]? {
        var number: OpaquePointer? = nil
        guard EVP_PKEY_get_bn_param(key, name, &number) == 1, let number else { return nil }
        defer { BN_free(number) }
        let count = width ?? Int((BN_num_bits(number) + 7) / 8)
        var bytes = [UInt8](repeating: 0, count: count)
        let written = bytes.withUnsafeMutableBufferPointer { BN_bn2binpad(number, $0.baseAddress, Int32(count)) }
        return written == count ? bytes : nil
    }
}
