public import Crypto

/// A developer key the stand-in accepts JWTs from: the public half of a `.p8` key with DeviceCheck enabled.
public struct DeveloperKey: Sendable {
    /// The team the key belongs to: the JWT's `iss`, and the scope of the two bits.
    public var teamID: String
    /// The key's 10-character id: the JWT header's `kid`.
    public var keyID: String
    /// The ES256 public key that checks the JWT's signature.
    public var publicKey: JWSPublicKey

    public init(teamID: String, keyID: String, publicKey: JWSPublicKey) {
        self.teamID = teamID
        self.keyID = keyID
        self.publicKey = publicKey
    }
}
