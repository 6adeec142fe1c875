public import Crypto

/// A service account allowed to sign custom tokens for a project: its public key (from a PEM public key or the
/// X.509 certificate Google publishes for the key) and, when known, its email, which must then be the token's
/// `iss` and `sub`.
public struct ServiceAccountKey: Sendable {
    public let email: String?
    public let publicKey: JWSPublicKey

    public init(email: String?, publicKey: JWSPublicKey) {
        self.email = email
        self.publicKey = publicKey
    }
}

extension ServiceAccountKey {
    /// A service account key from a PEM `PUBLIC KEY` or `CERTIFICATE`, as a project's configuration names it.
    public init(email: String?, pem: String) throws(PublicKeyError) {
        self.init(email: email, publicKey: try JWSPublicKey(pem: pem))
    }
}
