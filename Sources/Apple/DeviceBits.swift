/// A device's two DeviceCheck bits as Apple last stored them, for this team.
public struct DeviceBits: Sendable, Hashable {
    public var bit0: Bool
    public var bit1: Bool
    /// The month of the last update, `YYYY-MM` (Apple keeps it coarse on purpose).
    public var lastUpdateTime: String

    public init(bit0: Bool, bit1: Bool, lastUpdateTime: String) {
        self.bit0 = bit0
        self.bit1 = bit1
        self.lastUpdateTime = lastUpdateTime
    }
}
