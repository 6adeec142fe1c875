import COpenSSL
import Crypto

/// OpenSSL's own ECDSA verification rate on fixed inputs, the bound the verifier is measured against: the same
/// calls a verifier must make per signature (`EVP_DigestVerifyInit_ex` with SHA-256, then `EVP_DigestVerify`),
/// with the key already parsed.
final class OpenSSLBaseline {
    let curve: String
    private let key: OpaquePointer
    private let context: OpaquePointer
    let message: [UInt8]
    private(set) var signature: [UInt8]

    /// A fresh key on `curve` ("P-256" or "P-384") and a signature over `messageCount` random bytes (a credential
    /// certificate's to-be-signed part is about 900 bytes; an assertion's nonce is 32).
    init(curve: String, messageCount: Int) {
        self.curve = curve
        let generator = EVP_PKEY_CTX_new_from_name(nil, "EC", nil)
        defer { EVP_PKEY_CTX_free(generator) }
        var generated: OpaquePointer?
        guard EVP_PKEY_keygen_init(generator) == 1, EVP_PKEY_CTX_set_group_name(generator, curve) == 1,
              EVP_PKEY_generate(generator, &generated) == 1, let generated
        else { fatalError("OpenSSL could not generate a \(curve) key") }
        key = generated
        context = EVP_MD_CTX_new()
        message = SecureRandom.bytes(count: messageCount)
        signature = [UInt8](repeating: 0, count: 160)
        var length = signature.count
        guard EVP_DigestSignInit_ex(context, nil, "SHA256", nil, nil, key, nil) == 1,
              EVP_DigestSign(context, &signature, &length, message, message.count) == 1
        else { fatalError("OpenSSL could not sign with \(curve)") }
        signature = Array(signature.prefix(length))
    }

    deinit {
        EVP_MD_CTX_free(context)
        EVP_PKEY_free(key)
    }

    /// The key's public half, as attestd would read it (DER SubjectPublicKeyInfo).
    var publicKey: PublicKey {
        var output: UnsafeMutablePointer<UInt8>? = nil
        let count = i2d_PUBKEY(key, &output)
        guard count > 0, let output else { fatalError("OpenSSL could not encode a \(curve) public key") }
        defer { CRYPTO_free(output, #fileID, #line) }
        guard let key = try? PublicKey(subjectPublicKeyInfoDER: Array(UnsafeBufferPointer(start: output, count: Int(count))))
        else { fatalError("attestd could not read a \(curve) public key") }
        return key
    }

    /// One verification; true when it verified (always, unless OpenSSL is broken).
    func verifyOnce() -> Bool {
        EVP_MD_CTX_reset(context)
        return EVP_DigestVerifyInit_ex(context, nil, "SHA256", nil, nil, key, nil) == 1
            && EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
    }
}
