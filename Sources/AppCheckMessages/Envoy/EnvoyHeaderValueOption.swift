import GRPC

/// `envoy.config.core.v3.HeaderValueOption`: a header to set, and how it meets an existing one.
public struct EnvoyHeaderValueOption: Sendable, Hashable {
    /// `HeaderValueOption.HeaderAppendAction`.
    public enum AppendAction: Int32, Sendable {
        case appendIfExistsOrAdd = 0
        case addIfAbsent = 1
        /// Replaces whatever the client sent under the same name: what identity headers need.
        case overwriteIfExistsOrAdd = 2
        case overwriteIfExists = 3
    }

    public var header: EnvoyHeaderValue
    public var appendAction: AppendAction
    /// `append` (a `google.protobuf.BoolValue`, deprecated upstream in favour of `append_action`); nil leaves it
    /// absent, as attestd's own answers do, so that `appendAction` alone says what happens.
    public var append: Bool?

    public init(_ key: String, _ value: String, appendAction: AppendAction = .overwriteIfExistsOrAdd, append: Bool? = nil) {
        self.header = EnvoyHeaderValue(key: key, value: value)
        self.appendAction = appendAction
        self.append = append
    }
}

extension EnvoyHeaderValueOption: CBackedMessage {
    static let descriptor = MessageDescriptor("envoy.config.core.v3.HeaderValueOption")

    init(reading message: MessageReader) throws(GRPCStatus) {
        header = try message.message(1, as: EnvoyHeaderValue.self) ?? EnvoyHeaderValue(key: "", value: "")
        append = try message.message(2, as: BoolValue.self)?.value
        appendAction = AppendAction(rawValue: message.int32(3)) ?? .appendIfExistsOrAdd
    }

    func write(to message: MessageWriter) {
        message.message(1, header)
        message.message(2, append.map(BoolValue.init))
        message.int32(3, appendAction.rawValue)
    }

    /// `google.protobuf.BoolValue`.
    struct BoolValue: CBackedMessage {
        static let descriptor = MessageDescriptor("google.protobuf.BoolValue")
        var value: Bool

        init(_ value: Bool) { self.value = value }
        init(reading message: MessageReader) { value = message.bool(1) }
        func write(to message: MessageWriter) { message.bool(1, value) }
    }
}
