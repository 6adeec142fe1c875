import GRPC

/// `google.firebase.appcheck.v1.ExchangeRecaptchaV3TokenRequest`: reCAPTCHA v3; attestd answers UNIMPLEMENTED.
public struct ExchangeRecaptchaV3TokenRequest: ProtoMessage, Hashable {
    /// `projects/{project number or id}/apps/{app id}`; over REST it comes from the URL path.
    public var app: String
    public var recaptchaV3Token: String
    /// Whether the token is for limited use (replay protection): a 5-minute token.
    public var limitedUse: Bool

    public init(app: String = "", recaptchaV3Token: String = "", limitedUse: Bool = false) {
        self.app = app
        self.recaptchaV3Token = recaptchaV3Token
        self.limitedUse = limitedUse
    }
}

extension ExchangeRecaptchaV3TokenRequest: CBackedMessage {
    static let descriptor = MessageDescriptor("google.firebase.appcheck.v1.ExchangeRecaptchaV3TokenRequest")

    init(reading message: MessageReader) throws(GRPCStatus) {
        app = try message.string(1)
        recaptchaV3Token = try message.string(2)
        limitedUse = message.bool(3)
    }

    func write(to message: MessageWriter) {
        message.string(1, app)
        message.string(2, recaptchaV3Token)
        message.bool(3, limitedUse)
    }
}
