public import Crypto

/// The developer key Apple's DeviceCheck and risk-metric endpoints authenticate us by: a `.p8` key with the
/// DeviceCheck capability, its 10-character Key ID and the team it belongs to.
public struct DeveloperCredentials: Sendable {
    /// The Team ID: the JWT's `iss`.
    public var teamID: String
    /// The Key ID: the JWT header's `kid`.
    public var keyID: String
    /// The ES256 private key from the `.p8` file (PKCS#8 PEM).
    public var privateKey: PrivateKey

    public init(teamID: String, keyID: String, privateKey: PrivateKey) {
        self.teamID = teamID
        self.keyID = keyID
        self.privateKey = privateKey
    }
}
