import GRPC

/// `envoy.config.core.v3.HeaderValue`: one header.
public struct EnvoyHeaderValue: Sendable, Hashable {
    public var key: String
    public var value: String
    /// The value as bytes, which Envoy sends instead of `value` when it encodes raw headers.
    public var rawValue: [UInt8]

    public init(key: String, value: String, rawValue: [UInt8] = []) {
        self.key = key
        self.value = value
        self.rawValue = rawValue
    }
}

extension EnvoyHeaderValue: CBackedMessage {
    static let descriptor = MessageDescriptor("envoy.config.core.v3.HeaderValue")

    init(reading message: MessageReader) throws(GRPCStatus) {
        key = try message.string(1)
        value = try message.string(2)
        rawValue = message.bytes(3)
    }

    func write(to message: MessageWriter) {
        message.string(1, key)
        message.string(2, value)
        message.bytes(3, rawValue)
    }
}

/// `envoy.config.core.v3.HeaderMap`: a list of headers (not a map).
struct EnvoyHeaderMap: CBackedMessage {
    static let descriptor = MessageDescriptor("envoy.config.core.v3.HeaderMap")
    var headers: [EnvoyHeaderValue]

    init(reading message: MessageReader) throws(GRPCStatus) {
        headers = try message.messages(1, as: EnvoyHeaderValue.self)
    }

    func write(to message: MessageWriter) { message.messages(1, headers) }
}
