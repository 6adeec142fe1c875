import GRPC

/// `google.firebase.appcheck.v1.ExchangeAppAttestAttestationRequest`: An App Attest attestation of a new key, to
/// exchange for an artifact and an App Check token.
public struct ExchangeAppAttestAttestationRequest: ProtoMessage, Hashable {
    /// `projects/{project number or id}/apps/{app id}`; over REST it comes from the URL path.
    public var app: String
    /// The CBOR attestation object from `DCAppAttestService.attestKey`.
    public var attestationStatement: [UInt8]
    /// The raw challenge from the preceding GenerateAppAttestChallenge.
    public var challenge: [UInt8]
    /// The key id: SHA-256 of the credential public key.
    public var keyID: [UInt8]
    /// Whether the token is for limited use (replay protection): a 5-minute token.
    public var limitedUse: Bool

    public init(
        app: String = "",
        attestationStatement: [UInt8] = [],
        challenge: [UInt8] = [],
        keyID: [UInt8] = [],
        limitedUse: Bool = false
    ) {
        self.app = app
        self.attestationStatement = attestationStatement
        self.challenge = challenge
        self.keyID = keyID
        self.limitedUse = limitedUse
    }
}

extension ExchangeAppAttestAttestationRequest: CBackedMessage {
    static let descriptor = MessageDescriptor("google.firebase.appcheck.v1.ExchangeAppAttestAttestationRequest")

    init(reading message: MessageReader) throws(GRPCStatus) {
        app = try message.string(1)
        attestationStatement = message.bytes(2)
        challenge = message.bytes(3)
        keyID = message.bytes(4)
        limitedUse = message.bool(5)
    }

    func write(to message: MessageWriter) {
        message.string(1, app)
        message.bytes(2, attestationStatement)
        message.bytes(3, challenge)
        message.bytes(4, keyID)
        message.bool(5, limitedUse)
    }
}
