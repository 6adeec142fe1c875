/// `google.protobuf.Duration`: a signed span of whole seconds plus nanoseconds of the same sign.
/// JSON: `"300s"`, `"1.500s"`.
public struct ProtoDuration: ProtoMessage, Hashable, Comparable {
    public var seconds: Int64
    /// −999,999,999 … 999,999,999, with the sign of `seconds` when that is not zero.
    public var nanos: Int32

    public init(seconds: Int64 = 0, nanos: Int32 = 0) {
        self.seconds = seconds
        self.nanos = nanos
    }

    /// The zero duration.
    public static let zero = ProtoDuration()

    /// A duration of whole seconds.
    public static func seconds(_ seconds: Int64) -> ProtoDuration { ProtoDuration(seconds: seconds) }

    /// A duration of milliseconds.
    public static func milliseconds(_ milliseconds: Int64) -> ProtoDuration {
        ProtoDuration(seconds: milliseconds / 1000, nanos: Int32(milliseconds % 1000) * 1_000_000)
    }

    public static func < (lhs: ProtoDuration, rhs: ProtoDuration) -> Bool {
        (lhs.seconds, lhs.nanos) < (rhs.seconds, rhs.nanos)
    }
}

extension ProtoDuration: CBackedMessage {
    static let descriptor = MessageDescriptor("google.protobuf.Duration")

    init(reading message: MessageReader) {
        seconds = message.int64(1)
        nanos = message.int32(2)
    }

    func write(to message: MessageWriter) {
        message.int64(1, seconds)
        message.int32(2, nanos)
    }
}
