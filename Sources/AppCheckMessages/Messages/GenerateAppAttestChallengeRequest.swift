import GRPC

/// `google.firebase.appcheck.v1.GenerateAppAttestChallengeRequest`: Asks for a one-time App Attest challenge. The iOS
/// SDK sends no body at all.
public struct GenerateAppAttestChallengeRequest: ProtoMessage, Hashable {
    /// `projects/{project number or id}/apps/{app id}`; over REST it comes from the URL path.
    public var app: String

    public init(app: String = "") {
        self.app = app
    }
}

extension GenerateAppAttestChallengeRequest: CBackedMessage {
    static let descriptor = MessageDescriptor("google.firebase.appcheck.v1.GenerateAppAttestChallengeRequest")

    init(reading message: MessageReader) throws(GRPCStatus) {
        app = try message.string(1)
    }

    func write(to message: MessageWriter) {
        message.string(1, app)
    }
}
