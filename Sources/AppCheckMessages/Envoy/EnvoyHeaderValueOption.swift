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

    public init(_ key: String, _ value: String, appendAction: AppendAction = .overwriteIfExistsOrAdd) {
        self.header = EnvoyHeaderValue(key: key, value: value)
        self.appendAction = appendAction
    }
}

extension EnvoyHeaderValueOption: CBackedMessage {
    static let descriptor = MessageDescriptor("envoy.config.core.v3.HeaderValueOption")

    init(reading message: MessageReader) throws(GRPCStatus) {
        header = try message.message(1, as: EnvoyHeaderValue.self) ?? EnvoyHeaderValue(key: "", value: "")
        appendAction = AppendAction(rawValue: message.int32(3)) ?? .appendIfExistsOrAdd
    }

    func write(to message: MessageWriter) {
        message.message(1, header)
        message.int32(3, appendAction.rawValue)
    }
}
