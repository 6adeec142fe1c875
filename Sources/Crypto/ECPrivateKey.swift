internal import COpenSSL
internal import CShimsOpenSSL

/// An EC private key on P-256 or P-384 that makes DER ECDSA signatures (X.509 and CMS style), for issuing
/// certificates and signing test objects: the simulator's CAs and device keys, the benchmarks' keys.
///
/// `@unchecked Sendable`: the `EVP_PKEY` is never changed after it is made, and OpenSSL 3 allows concurrent signing
/// and reading with one key.
public final class ECPrivateKey: @unchecked Sendable {
    /// The curves an ``ECPrivateKey`` may be on.
    public enum Curve: String, Sendable, Hashable {
        case p256 = "P-256"
        case p384 = "P-384"
    }

    /// `EVP_PKEY *`, owned (one reference).
    let key: OpaquePointer
    /// The key's curve.
    public let curve: Curve
    /// The uncompressed public point `04 || X || Y` (65 bytes on P-256, 97 on P-384).
    public let publicPoint: [UInt8]

    /// A fresh random key on `curve`.
    public static func generate(_ curve: Curve) throws(CryptoError) -> ECPrivateKey {
        OpenSSLErrorQueue.clear()
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw OpenSSLErrorQueue.error(.internalFailure, "no EC key generation")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var generated: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, curve.rawValue) == 1,
              EVP_PKEY_generate(context, &generated) == 1, let generated
        else { throw OpenSSLErrorQueue.error(.internalFailure, "cannot generate a \(curve.rawValue) key") }
        return try ECPrivateKey(owning: generated, curve: curve)
    }

    /// Reads a P-256 or P-384 private key from PEM (PKCS#8 or SEC 1), unencrypted.
    public static func read(pem: String) throws(CryptoError) -> ECPrivateKey {
        OpenSSLErrorQueue.clear()
        // The callback answers "no passphrase": without one OpenSSL would prompt on the terminal.
        guard let key = PEM.withReadBIO(pem, { PEM_read_bio_PrivateKey($0, nil, { _, _, _, _ in 0 }, nil) }) ?? nil else {
            throw OpenSSLErrorQueue.error(.malformedKey, "no PEM private key")
        }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        var curve: Curve?
        if EVP_PKEY_is_a(key, "EC") == 1, EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1 {
            switch String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) {
            case "prime256v1", "P-256": curve = .p256
            case "secp384r1", "P-384": curve = .p384
            default: curve = nil
            }
        }
        guard let curve else {
            EVP_PKEY_free(key)
            throw CryptoError(.unsupportedKey, "not an EC key on P-256 or P-384")
        }
        return try ECPrivateKey(owning: key, curve: curve)
    }

    private init(owning key: OpaquePointer, curve: Curve) throws(CryptoError) {
        var point = [UInt8](repeating: 0, count: 133)
        var length = 0
        guard EVP_PKEY_get_octet_string_param(key, "pub", &point, point.count, &length) == 1 else {
            EVP_PKEY_free(key)
            throw OpenSSLErrorQueue.error(.malformedKey, "the key has no public point")
        }
        self.key = key
        self.curve = curve
        self.publicPoint = Array(point.prefix(length))
    }

    deinit { EVP_PKEY_free(key) }

    /// The key as unencrypted PKCS#8 PEM (`BEGIN PRIVATE KEY`).
    public func pem() -> String {
        PEM.written { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) } ?? ""
    }

    /// The public half as a DER SubjectPublicKeyInfo.
    public var subjectPublicKeyInfoDER: [UInt8] {
        var output: UnsafeMutablePointer<UInt8>? = nil
        let count = i2d_PUBKEY(key, &output)
        guard count > 0, let output else { return [] }
        defer { cshims_OPENSSL_free(output) }
        return Array(UnsafeBufferPointer(start: output, count: Int(count)))
    }

    /// The public half, as the verifiers read it.
    public func publicKey() throws(CryptoError) -> PublicKey {
        try PublicKey(subjectPublicKeyInfoDER: subjectPublicKeyInfoDER)
    }

    /// A DER ECDSA signature (ECDSA-Sig-Value) of `message`, hashed with `digest` (`EVP_DigestSign`).
    public func signature(_ message: some ContiguousBytes, digest: SignatureDigest = .sha256) throws(CryptoError) -> [UInt8] {
        OpenSSLErrorQueue.clear()
        guard let context = EVP_MD_CTX_new() else { throw OpenSSLErrorQueue.error(.internalFailure, "EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        var signature = [UInt8](repeating: 0, count: 160)
        var length = signature.count
        let signed = message.withUnsafeBytes { bytes in
            EVP_DigestSignInit_ex(context, nil, digest.name, nil, nil, key, nil) == 1
                && EVP_DigestSign(context, &signature, &length, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count) == 1
        }
        guard signed else { throw OpenSSLErrorQueue.error(.internalFailure, "cannot sign with a \(curve.rawValue) key") }
        return Array(signature.prefix(length))
    }
}
