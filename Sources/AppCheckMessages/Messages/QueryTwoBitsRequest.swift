import GRPC

/// `attestd.v1.QueryTwoBitsRequest`: Asks for the two bits Apple's DeviceCheck keeps for a device.
public struct QueryTwoBitsRequest: ProtoMessage, Hashable {
    /// `projects/{project number or id}/apps/{app id}`; over REST it comes from the URL path.
    public var app: String
    /// The DCDevice token, base64-encoded as the device sent it.
    public var deviceToken: String

    public init(app: String = "", deviceToken: String = "") {
        self.app = app
        self.deviceToken = deviceToken
    }
}

extension QueryTwoBitsRequest: CBackedMessage {
    static let descriptor = MessageDescriptor("attestd.v1.QueryTwoBitsRequest")

    init(reading message: MessageReader) throws(GRPCStatus) {
        app = try message.string(1)
        deviceToken = try message.string(2)
    }

    func write(to message: MessageWriter) {
        message.string(1, app)
        message.string(2, deviceToken)
    }
}
