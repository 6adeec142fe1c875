import Crypto

/// OpenSSL's ECDSA verification rate on fixed inputs, the bound the verifier is measured against, through Crypto's
/// public API: a fresh key made and a message signed by `ECPrivateKey`, checked by `PublicKey.isValidSignature`,
/// the call every verifier makes per signature, with the key already parsed.
final class OpenSSLBaseline {
    let curve: ECPrivateKey.Curve
    private let key: PublicKey
    let message: [UInt8]
    let signature: [UInt8]

    /// A fresh key on `curve` and a signature over `messageCount` random bytes (a credential certificate's
    /// to-be-signed part is about 900 bytes; an assertion's nonce is 32).
    init(curve: ECPrivateKey.Curve, messageCount: Int) {
        self.curve = curve
        message = SecureRandom.bytes(count: messageCount)
        do throws(CryptoError) {
            let privateKey = try ECPrivateKey.generate(curve)
            signature = try privateKey.signature(message)
            key = try privateKey.publicKey()
        } catch {
            fatalError("Crypto could not make a \(curve.rawValue) key and signature: \(error)")
        }
    }

    /// The key's public half, parsed again as attestd would read it (DER SubjectPublicKeyInfo).
    var publicKey: PublicKey {
        guard let parsed = try? PublicKey(subjectPublicKeyInfoDER: key.subjectPublicKeyInfoDER) else {
            fatalError("attestd could not read a \(curve.rawValue) public key")
        }
        return parsed
    }

    /// One verification; true when it verified (always, unless OpenSSL is broken).
    func verifyOnce() -> Bool {
        key.isValidSignature(signature, for: message)
    }
}
