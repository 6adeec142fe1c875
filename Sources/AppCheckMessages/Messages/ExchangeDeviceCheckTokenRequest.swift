import GRPC

/// `google.firebase.appcheck.v1.ExchangeDeviceCheckTokenRequest`: Exchanges a DeviceCheck token for an App Check
/// token.
public struct ExchangeDeviceCheckTokenRequest: ProtoMessage, Hashable {
    /// `projects/{project number or id}/apps/{app id}`; over REST it comes from the URL path.
    public var app: String
    /// The DCDevice token, base64-encoded by the client.
    public var deviceToken: String
    /// Whether the token is for limited use (replay protection): a 5-minute token.
    public var limitedUse: Bool

    public init(app: String = "", deviceToken: String = "", limitedUse: Bool = false) {
        self.app = app
        self.deviceToken = deviceToken
        self.limitedUse = limitedUse
    }
}

extension ExchangeDeviceCheckTokenRequest: CBackedMessage {
    static let descriptor = MessageDescriptor("google.firebase.appcheck.v1.ExchangeDeviceCheckTokenRequest")

    init(reading message: MessageReader) throws(GRPCStatus) {
        app = try message.string(1)
        deviceToken = try message.string(2)
        limitedUse = message.bool(3)
    }

    func write(to message: MessageWriter) {
        message.string(1, app)
        message.string(2, deviceToken)
        message.bool(3, limitedUse)
    }
}
