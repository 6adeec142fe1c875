import GRPC

/// `envoy.service.auth.v3.CheckRequest`: what Envoy's ext_authz filter asks about one downstream request.
public struct EnvoyCheckRequest: ProtoMessage, Sendable {
    /// The request attributes.
    public var attributes: EnvoyAttributeContext

    public init(attributes: EnvoyAttributeContext = EnvoyAttributeContext()) {
        self.attributes = attributes
    }
}

extension EnvoyCheckRequest: CBackedMessage {
    static let descriptor = MessageDescriptor("envoy.service.auth.v3.CheckRequest")

    init(reading message: MessageReader) throws(GRPCStatus) {
        attributes = try message.message(1, as: EnvoyAttributeContext.self) ?? EnvoyAttributeContext()
    }

    func write(to message: MessageWriter) {
        message.message(1, attributes)
    }
}
