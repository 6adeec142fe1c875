import GRPC

/// `google.firebase.appcheck.v1.ExchangePlayIntegrityTokenRequest`: Play Integrity; attestd answers UNIMPLEMENTED.
public struct ExchangePlayIntegrityTokenRequest: ProtoMessage, Hashable {
    /// `projects/{project number or id}/apps/{app id}`; over REST it comes from the URL path.
    public var app: String
    public var playIntegrityToken: String
    /// Whether the token is for limited use (replay protection): a 5-minute token.
    public var limitedUse: Bool

    public init(app: String = "", playIntegrityToken: String = "", limitedUse: Bool = false) {
        self.app = app
        self.playIntegrityToken = playIntegrityToken
        self.limitedUse = limitedUse
    }
}

extension ExchangePlayIntegrityTokenRequest: CBackedMessage {
    static let descriptor = MessageDescriptor("google.firebase.appcheck.v1.ExchangePlayIntegrityTokenRequest")

    init(reading message: MessageReader) throws(GRPCStatus) {
        app = try message.string(1)
        playIntegrityToken = try message.string(2)
        limitedUse = message.bool(3)
    }

    func write(to message: MessageWriter) {
        message.string(1, app)
        message.string(2, playIntegrityToken)
        message.bool(3, limitedUse)
    }
}
