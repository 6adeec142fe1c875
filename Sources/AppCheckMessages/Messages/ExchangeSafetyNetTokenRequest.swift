import GRPC

/// `google.firebase.appcheck.v1.ExchangeSafetyNetTokenRequest`: SafetyNet (shut down by Google); attestd answers
/// UNIMPLEMENTED.
public struct ExchangeSafetyNetTokenRequest: ProtoMessage, Hashable {
    /// `projects/{project number or id}/apps/{app id}`; over REST it comes from the URL path.
    public var app: String
    public var safetyNetToken: String

    public init(app: String = "", safetyNetToken: String = "") {
        self.app = app
        self.safetyNetToken = safetyNetToken
    }
}

extension ExchangeSafetyNetTokenRequest: CBackedMessage {
    static let descriptor = MessageDescriptor("google.firebase.appcheck.v1.ExchangeSafetyNetTokenRequest")

    init(reading message: MessageReader) throws(GRPCStatus) {
        app = try message.string(1)
        safetyNetToken = try message.string(2)
    }

    func write(to message: MessageWriter) {
        message.string(1, app)
        message.string(2, safetyNetToken)
    }
}
