import GRPC

/// `google.firebase.appcheck.v1.ExchangeCustomTokenRequest`: Exchanges a custom token signed by a service account for
/// an App Check token.
public struct ExchangeCustomTokenRequest: ProtoMessage, Hashable {
    /// `projects/{project number or id}/apps/{app id}`; over REST it comes from the URL path.
    public var app: String
    /// An RS256 JWT signed by a service account.
    public var customToken: String
    /// Whether the token is for limited use (replay protection): a 5-minute token.
    public var limitedUse: Bool

    public init(app: String = "", customToken: String = "", limitedUse: Bool = false) {
        self.app = app
        self.customToken = customToken
        self.limitedUse = limitedUse
    }
}

extension ExchangeCustomTokenRequest: CBackedMessage {
    static let descriptor = MessageDescriptor("google.firebase.appcheck.v1.ExchangeCustomTokenRequest")

    init(reading message: MessageReader) throws(GRPCStatus) {
        app = try message.string(1)
        customToken = try message.string(2)
        limitedUse = message.bool(3)
    }

    func write(to message: MessageWriter) {
        message.string(1, app)
        message.string(2, customToken)
        message.bool(3, limitedUse)
    }
}
