import GRPC

/// `google.firebase.appcheck.v1.ExchangeAppAttestAssertionRequest`: An App Attest assertion made with an attested
/// key, to exchange for an App Check token.
public struct ExchangeAppAttestAssertionRequest: ProtoMessage, Hashable {
    /// `projects/{project number or id}/apps/{app id}`; over REST it comes from the URL path.
    public var app: String
    /// From the earlier ExchangeAppAttestAttestationResponse.
    public var artifact: [UInt8]
    /// The CBOR assertion from `DCAppAttestService.generateAssertion`.
    public var assertion: [UInt8]
    /// The raw challenge from the preceding GenerateAppAttestChallenge.
    public var challenge: [UInt8]
    /// Whether the token is for limited use (replay protection): a 5-minute token.
    public var limitedUse: Bool

    public init(
        app: String = "",
        artifact: [UInt8] = [],
        assertion: [UInt8] = [],
        challenge: [UInt8] = [],
        limitedUse: Bool = false
    ) {
        self.app = app
        self.artifact = artifact
        self.assertion = assertion
        self.challenge = challenge
        self.limitedUse = limitedUse
    }
}

extension ExchangeAppAttestAssertionRequest: CBackedMessage {
    static let descriptor = MessageDescriptor("google.firebase.appcheck.v1.ExchangeAppAttestAssertionRequest")

    init(reading message: MessageReader) throws(GRPCStatus) {
        app = try message.string(1)
        artifact = message.bytes(2)
        assertion = message.bytes(3)
        challenge = message.bytes(4)
        limitedUse = message.bool(5)
    }

    func write(to message: MessageWriter) {
        message.string(1, app)
        message.bytes(2, artifact)
        message.bytes(3, assertion)
        message.bytes(4, challenge)
        message.bool(5, limitedUse)
    }
}
