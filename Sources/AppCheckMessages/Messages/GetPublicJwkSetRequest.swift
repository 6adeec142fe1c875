import GRPC

/// `google.firebase.appcheck.v1.GetPublicJwkSetRequest`: Asks for the public keys that verify App Check tokens.
public struct GetPublicJwkSetRequest: ProtoMessage, Hashable {
    /// Always `jwks`.
    public var name: String

    public init(name: String = "") {
        self.name = name
    }
}

extension GetPublicJwkSetRequest: CBackedMessage {
    static let descriptor = MessageDescriptor("google.firebase.appcheck.v1.GetPublicJwkSetRequest")

    init(reading message: MessageReader) throws(GRPCStatus) {
        name = try message.string(1)
    }

    func write(to message: MessageWriter) {
        message.string(1, name)
    }
}
