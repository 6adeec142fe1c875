import GRPC

/// `google.firebase.appcheck.v1.ExchangeRecaptchaEnterpriseTokenRequest`: reCAPTCHA Enterprise; attestd answers
/// UNIMPLEMENTED.
public struct ExchangeRecaptchaEnterpriseTokenRequest: ProtoMessage, Hashable {
    /// `projects/{project number or id}/apps/{app id}`; over REST it comes from the URL path.
    public var app: String
    public var recaptchaEnterpriseToken: String
    /// Whether the token is for limited use (replay protection): a 5-minute token.
    public var limitedUse: Bool

    public init(app: String = "", recaptchaEnterpriseToken: String = "", limitedUse: Bool = false) {
        self.app = app
        self.recaptchaEnterpriseToken = recaptchaEnterpriseToken
        self.limitedUse = limitedUse
    }
}

extension ExchangeRecaptchaEnterpriseTokenRequest: CBackedMessage {
    static let descriptor = MessageDescriptor("google.firebase.appcheck.v1.ExchangeRecaptchaEnterpriseTokenRequest")

    init(reading message: MessageReader) throws(GRPCStatus) {
        app = try message.string(1)
        recaptchaEnterpriseToken = try message.string(2)
        limitedUse = message.bool(3)
    }

    func write(to message: MessageWriter) {
        message.string(1, app)
        message.string(2, recaptchaEnterpriseToken)
        message.bool(3, limitedUse)
    }
}
