import GRPC

/// `attestd.v1.RevokeAttestedKeyRequest`: Revokes an attested key: later assertions with it are refused.
public struct RevokeAttestedKeyRequest: ProtoMessage, Hashable {
    /// `projects/{project number or id}/apps/{app id}`; over REST it comes from the URL path.
    public var app: String
    /// The App Attest key id (SHA-256 of the public key).
    public var keyID: [UInt8]
    /// Why, for operators; never shown to devices.
    public var reason: String

    public init(app: String = "", keyID: [UInt8] = [], reason: String = "") {
        self.app = app
        self.keyID = keyID
        self.reason = reason
    }
}

extension RevokeAttestedKeyRequest: CBackedMessage {
    static let descriptor = MessageDescriptor("attestd.v1.RevokeAttestedKeyRequest")

    init(reading message: MessageReader) throws(GRPCStatus) {
        app = try message.string(1)
        keyID = message.bytes(2)
        reason = try message.string(3)
    }

    func write(to message: MessageWriter) {
        message.string(1, app)
        message.bytes(2, keyID)
        message.string(3, reason)
    }
}
