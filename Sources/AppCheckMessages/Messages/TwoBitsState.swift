import GRPC

/// `attestd.v1.TwoBitsState`: The two bits Apple's DeviceCheck keeps for a device.
public struct TwoBitsState: ProtoMessage, Hashable {
    public var bit0: Bool
    public var bit1: Bool
    /// When the bits last changed; Apple reports the month only, so this is its first instant (UTC).
    public var lastUpdateTime: ProtoTimestamp?
    /// False when the bits were never set for this device.
    public var bitsSet: Bool

    public init(
        bit0: Bool = false,
        bit1: Bool = false,
        lastUpdateTime: ProtoTimestamp? = nil,
        bitsSet: Bool = false
    ) {
        self.bit0 = bit0
        self.bit1 = bit1
        self.lastUpdateTime = lastUpdateTime
        self.bitsSet = bitsSet
    }
}

extension TwoBitsState: CBackedMessage {
    static let descriptor = MessageDescriptor("attestd.v1.TwoBitsState")

    init(reading message: MessageReader) throws(GRPCStatus) {
        bit0 = message.bool(1)
        bit1 = message.bool(2)
        lastUpdateTime = try message.message(3, as: ProtoTimestamp.self)
        bitsSet = message.bool(4)
    }

    func write(to message: MessageWriter) {
        message.bool(1, bit0)
        message.bool(2, bit1)
        message.message(3, lastUpdateTime)
        message.bool(4, bitsSet)
    }
}
