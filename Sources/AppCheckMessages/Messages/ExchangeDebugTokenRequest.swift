import GRPC

/// `google.firebase.appcheck.v1.ExchangeDebugTokenRequest`: Exchanges a debug token secret for an App Check token.
public struct ExchangeDebugTokenRequest: ProtoMessage, Hashable {
    /// `projects/{project number or id}/apps/{app id}`; over REST it comes from the URL path.
    public var app: String
    /// The debug token secret.
    public var debugToken: String
    /// Whether the token is for limited use (replay protection): a 5-minute token.
    public var limitedUse: Bool

    public init(app: String = "", debugToken: String = "", limitedUse: Bool = false) {
        self.app = app
        self.debugToken = debugToken
        self.limitedUse = limitedUse
    }
}

extension ExchangeDebugTokenRequest: CBackedMessage {
    static let descriptor = MessageDescriptor("google.firebase.appcheck.v1.ExchangeDebugTokenRequest")

    init(reading message: MessageReader) throws(GRPCStatus) {
        app = try message.string(1)
        debugToken = try message.string(2)
        limitedUse = message.bool(3)
    }

    func write(to message: MessageWriter) {
        message.string(1, app)
        message.string(2, debugToken)
        message.bool(3, limitedUse)
    }
}
