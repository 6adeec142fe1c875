import Crypto

extension ECKeyPair {
    /// The private key as unencrypted PKCS#8 PEM (`BEGIN PRIVATE KEY`).
    var privateKeyPEM: String { key.pem() }

    /// Reads a P-256 or P-384 private key from PEM (PKCS#8 or SEC 1); nil for anything else.
    static func read(pem: String) -> ECKeyPair? {
        (try? ECPrivateKey.read(pem: pem)).map(ECKeyPair.init)
    }
}
