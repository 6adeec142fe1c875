import GRPC

/// `google.firebase.appcheck.v1.ExchangeAppAttestAttestationResponse`: The answer to an accepted attestation.
public struct ExchangeAppAttestAttestationResponse: ProtoMessage, Hashable {
    /// Opaque to the client; sent back with every assertion.
    public var artifact: [UInt8]
    public var appCheckToken: AppCheckToken?

    public init(artifact: [UInt8] = [], appCheckToken: AppCheckToken? = nil) {
        self.artifact = artifact
        self.appCheckToken = appCheckToken
    }
}

extension ExchangeAppAttestAttestationResponse: CBackedMessage {
    static let descriptor = MessageDescriptor("google.firebase.appcheck.v1.ExchangeAppAttestAttestationResponse")

    init(reading message: MessageReader) throws(GRPCStatus) {
        artifact = message.bytes(1)
        appCheckToken = try message.message(2, as: AppCheckToken.self)
    }

    func write(to message: MessageWriter) {
        message.bytes(1, artifact)
        message.message(2, appCheckToken)
    }
}
