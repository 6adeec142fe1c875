internal import COpenSSL

/// An EC private key held by OpenSSL, for the simulated CAs (P-384, P-256) and device keys (P-256).
///
/// `@unchecked Sendable`: the `EVP_PKEY` is never mutated after generation, and OpenSSL 3 allows concurrent
/// signing and reading with one key.
final class ECKeyPair: @unchecked Sendable {
    enum Curve: String {
        case p256 = "P-256"
        case p384 = "P-384"
    }

    let pkey: OpaquePointer
    let curve: Curve
    /// The uncompressed point `04 || X || Y` (65 bytes for P-256, 97 for P-384).
    let publicPoint: [UInt8]

    /// A fresh key on `curve`.
    convenience init(curve: Curve) {
        let context = OpenSSLCall.require(EVP_PKEY_CTX_new_from_name(nil, "EC", nil), "EVP_PKEY_CTX_new_from_name")
        defer { EVP_PKEY_CTX_free(context) }
        OpenSSLCall.require(EVP_PKEY_keygen_init(context) == 1, "EVP_PKEY_keygen_init")
        OpenSSLCall.require(EVP_PKEY_CTX_set_group_name(context, curve.rawValue) == 1, "EVP_PKEY_CTX_set_group_name")
        var generated: OpaquePointer?
        OpenSSLCall.require(EVP_PKEY_generate(context, &generated) == 1, "EVP_PKEY_generate")
        self.init(adopting: generated!, curve: curve)
    }

    /// Takes ownership of `pkey`, an EC private key on `curve` (generated here or read from a file).
    init(adopting pkey: OpaquePointer, curve: Curve) {
        self.pkey = pkey
        self.curve = curve
        var point = [UInt8](repeating: 0, count: 133)
        var length = 0
        OpenSSLCall.require(
            EVP_PKEY_get_octet_string_param(pkey, "pub", &point, point.count, &length) == 1,
            "EVP_PKEY_get_octet_string_param(pub)")
        publicPoint = Array(point.prefix(length))
    }

    deinit { EVP_PKEY_free(pkey) }

    /// A DER ECDSA signature of `message`, hashed with `digest` ("SHA256" or "SHA384") by OpenSSL.
    func sign(_ message: [UInt8], digest: String = "SHA256") -> [UInt8] {
        let context = OpenSSLCall.require(EVP_MD_CTX_new(), "EVP_MD_CTX_new")
        defer { EVP_MD_CTX_free(context) }
        OpenSSLCall.require(
            EVP_DigestSignInit_ex(context, nil, digest, nil, nil, pkey, nil) == 1, "EVP_DigestSignInit_ex")
        var length = 0
        OpenSSLCall.require(EVP_DigestSign(context, nil, &length, message, message.count) == 1, "EVP_DigestSign(size)")
        var signature = [UInt8](repeating: 0, count: length)
        OpenSSLCall.require(EVP_DigestSign(context, &signature, &length, message, message.count) == 1, "EVP_DigestSign")
        return Array(signature.prefix(length))
    }

    /// The DER SubjectPublicKeyInfo.
    var subjectPublicKeyInfoDER: [UInt8] {
        OpenSSLCall.encode("i2d_PUBKEY") { i2d_PUBKEY(pkey, $0) }
    }
}
