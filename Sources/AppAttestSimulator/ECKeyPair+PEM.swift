internal import COpenSSL

extension ECKeyPair {
    /// The private key as unencrypted PKCS#8 PEM (`BEGIN PRIVATE KEY`).
    var privateKeyPEM: String {
        PEMText.written { PEM_write_bio_PrivateKey($0, pkey, nil, nil, 0, nil, nil) }
    }

    /// Reads a P-256 or P-384 private key from PEM (PKCS#8 or SEC 1); nil for anything else.
    static func read(pem: String) -> ECKeyPair? {
        guard let pkey = PEMText.read(pem, { PEM_read_bio_PrivateKey($0, nil, nil, nil) }) else { return nil }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        let curve: Curve?
        if EVP_PKEY_is_a(pkey, "EC") == 1, EVP_PKEY_get_group_name(pkey, &name, name.count, &length) == 1 {
            switch String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) {
            case "prime256v1", "P-256": curve = .p256
            case "secp384r1", "P-384": curve = .p384
            default: curve = nil
            }
        } else {
            curve = nil
        }
        guard let curve else {
            EVP_PKEY_free(pkey)
            return nil
        }
        return ECKeyPair(adopting: pkey, curve: curve)
    }
}
