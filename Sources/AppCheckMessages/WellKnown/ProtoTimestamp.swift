/// `google.protobuf.Timestamp`: seconds and non-negative nanoseconds since the Unix epoch, UTC.
/// JSON: RFC 3339, `"2026-11-29T15:38:45Z"`.
public struct ProtoTimestamp: ProtoMessage, Hashable, Comparable {
    public var seconds: Int64
    /// 0 … 999,999,999.
    public var nanos: Int32

    public init(seconds: Int64 = 0, nanos: Int32 = 0) {
        self.seconds = seconds
        self.nanos = nanos
    }

    /// The instant `seconds` after the Unix epoch.
    public init(secondsSince1970 seconds: Int64) {
        self.init(seconds: seconds)
    }

    public static func < (lhs: ProtoTimestamp, rhs: ProtoTimestamp) -> Bool {
        (lhs.seconds, lhs.nanos) < (rhs.seconds, rhs.nanos)
    }
}

extension ProtoTimestamp: CBackedMessage {
    static let descriptor = MessageDescriptor("google.protobuf.Timestamp")

    init(reading message: MessageReader) {
        seconds = message.int64(1)
        nanos = message.int32(2)
    }

    func write(to message: MessageWriter) {
        message.int64(1, seconds)
        message.int32(2, nanos)
    }
}
