import GRPC

/// `google.firebase.appcheck.v1.GeneratePlayIntegrityChallengeRequest`: Play Integrity; attestd answers
/// UNIMPLEMENTED.
public struct GeneratePlayIntegrityChallengeRequest: ProtoMessage, Hashable {
    /// `projects/{project number or id}/apps/{app id}`; over REST it comes from the URL path.
    public var app: String

    public init(app: String = "") {
        self.app = app
    }
}

extension GeneratePlayIntegrityChallengeRequest: CBackedMessage {
    static let descriptor = MessageDescriptor("google.firebase.appcheck.v1.GeneratePlayIntegrityChallengeRequest")

    init(reading message: MessageReader) throws(GRPCStatus) {
        app = try message.string(1)
    }

    func write(to message: MessageWriter) {
        message.string(1, app)
    }
}
