/// What a valid attestation establishes: the key to store for the device, and what else was learned.
public struct VerifiedAttestation: Sendable {
    /// The attested public key, the 65-byte uncompressed point `04 || X || Y`.
    public let publicKey: [UInt8]
    /// The keyId, SHA-256 of `publicKey`.
    public let keyID: [UInt8]
    /// The configured App ID whose hash the authenticator data carried.
    public let appID: AppID
    /// The environment of the attested key (from its aaguid).
    public let environment: AppAttestEnvironment
    /// The receipt: a risk signal, never a reason to refuse the attestation.
    public let receipt: ReceiptOutcome
    /// The iOS 27 extensions (empty before iOS 27).
    public let extensions: AuthenticatorExtensions
    /// The counter to store for the key (always 0 after an attestation).
    public var counter: UInt32 { 0 }
    /// True when the chain was verified through a cached intermediate.
    public let usedCachedIntermediate: Bool
}

/// What became of the receipt inside an attestation.
public enum ReceiptOutcome: Sendable {
    /// The attestation statement had no receipt.
    case missing
    /// The receipt was present but empty.
    case empty
    /// The receipt did not verify; the attestation stands, and the service records why.
    case unverifiable(AppAttestError)
    /// The receipt verified to Apple Root CA - G3 and matches the App ID, key and clientDataHash.
    case verified(Receipt)
}
