import GRPC

/// `google.firebase.appcheck.v1.PublicJwkSet`: A JSON Web Key Set (RFC 7517 §5): the keys that verify App Check
/// tokens.
public struct PublicJwkSet: ProtoMessage, Hashable {
    public var keys: [PublicJwk]

    public init(keys: [PublicJwk] = []) {
        self.keys = keys
    }
}

extension PublicJwkSet: CBackedMessage {
    static let descriptor = MessageDescriptor("google.firebase.appcheck.v1.PublicJwkSet")

    init(reading message: MessageReader) throws(GRPCStatus) {
        keys = try message.messages(1, as: PublicJwk.self)
    }

    func write(to message: MessageWriter) {
        message.messages(1, keys)
    }
}
