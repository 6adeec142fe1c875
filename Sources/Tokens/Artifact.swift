/// What an App Attest artifact carries: the attested key and the app it was attested for. The server hands it to
/// the client sealed (see `ArtifactKeyring`) and gets it back with every assertion, which carries no key id, so
/// any node can find the key without a lookup.
public struct Artifact: Sendable, Equatable {
    /// The App Attest environment the key was attested in (the attestation's aaguid).
    public enum Environment: UInt8, Sendable {
        case production = 1
        case development = 2
    }

    public static let keyIDCount = 32
    public static let publicKeyCount = 65
    /// The longest app id an artifact can carry, in UTF-8 bytes (its length travels in one byte).
    public static let maximumAppIDCount = 255

    /// The Firebase app id.
    public let appID: String
    /// Apple's key id: SHA-256 of the public key, 32 bytes.
    public let keyID: [UInt8]
    /// The attested P-256 public key, uncompressed (0x04 ‖ x ‖ y), 65 bytes.
    public let publicKey: [UInt8]
    public let environment: Environment
    /// When the attestation was verified, Unix seconds.
    public let attestedAt: Int64

    /// Nil when a field has the wrong size: `keyID` 32 bytes, `publicKey` 65 bytes, `appID` 1-255 UTF-8 bytes.
    public init?(appID: String, keyID: [UInt8], publicKey: [UInt8], environment: Environment, attestedAt: Int64) {
        guard keyID.count == Self.keyIDCount, publicKey.count == Self.publicKeyCount,
              (1...Self.maximumAppIDCount).contains(appID.utf8.count)
        else { return nil }
        self.appID = appID
        self.keyID = keyID
        self.publicKey = publicKey
        self.environment = environment
        self.attestedAt = attestedAt
    }
}
