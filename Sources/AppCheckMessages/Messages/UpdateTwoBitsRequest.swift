import GRPC

/// `attestd.v1.UpdateTwoBitsRequest`: Sets the two bits Apple's DeviceCheck keeps for a device.
public struct UpdateTwoBitsRequest: ProtoMessage, Hashable {
    /// `projects/{project number or id}/apps/{app id}`; over REST it comes from the URL path.
    public var app: String
    /// The DCDevice token, base64-encoded as the device sent it.
    public var deviceToken: String
    public var bit0: Bool
    public var bit1: Bool

    public init(app: String = "", deviceToken: String = "", bit0: Bool = false, bit1: Bool = false) {
        self.app = app
        self.deviceToken = deviceToken
        self.bit0 = bit0
        self.bit1 = bit1
    }
}

extension UpdateTwoBitsRequest: CBackedMessage {
    static let descriptor = MessageDescriptor("attestd.v1.UpdateTwoBitsRequest")

    init(reading message: MessageReader) throws(GRPCStatus) {
        app = try message.string(1)
        deviceToken = try message.string(2)
        bit0 = message.bool(3)
        bit1 = message.bool(4)
    }

    func write(to message: MessageWriter) {
        message.string(1, app)
        message.string(2, deviceToken)
        message.bool(3, bit0)
        message.bool(4, bit1)
    }
}
