import GRPC

/// `attestd.v1.GetAttestedKeyRequest`: Asks for one attested key of an app.
public struct GetAttestedKeyRequest: ProtoMessage, Hashable {
    /// `projects/{project number or id}/apps/{app id}`; over REST it comes from the URL path.
    public var app: String
    /// The App Attest key id (SHA-256 of the public key).
    public var keyID: [UInt8]

    public init(app: String = "", keyID: [UInt8] = []) {
        self.app = app
        self.keyID = keyID
    }
}

extension GetAttestedKeyRequest: CBackedMessage {
    static let descriptor = MessageDescriptor("attestd.v1.GetAttestedKeyRequest")

    init(reading message: MessageReader) throws(GRPCStatus) {
        app = try message.string(1)
        keyID = message.bytes(2)
    }

    func write(to message: MessageWriter) {
        message.string(1, app)
        message.bytes(2, keyID)
    }
}
