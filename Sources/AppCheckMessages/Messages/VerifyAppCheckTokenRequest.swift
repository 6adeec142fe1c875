import GRPC

/// `google.firebase.appcheck.v1.VerifyAppCheckTokenRequest`: Asks whether an App Check token was already consumed,
/// consuming it.
public struct VerifyAppCheckTokenRequest: ProtoMessage, Hashable {
    /// `projects/{project number or id}`; over REST it comes from the URL path.
    public var project: String
    /// The App Check token (a JWT).
    public var appCheckToken: String

    public init(project: String = "", appCheckToken: String = "") {
        self.project = project
        self.appCheckToken = appCheckToken
    }
}

extension VerifyAppCheckTokenRequest: CBackedMessage {
    static let descriptor = MessageDescriptor("google.firebase.appcheck.v1.VerifyAppCheckTokenRequest")

    init(reading message: MessageReader) throws(GRPCStatus) {
        project = try message.string(1)
        appCheckToken = try message.string(2)
    }

    func write(to message: MessageWriter) {
        message.string(1, project)
        message.string(2, appCheckToken)
    }
}
