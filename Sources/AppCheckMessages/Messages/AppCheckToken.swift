import GRPC

/// `google.firebase.appcheck.v1.AppCheckToken`: An App Check token and its lifetime.
public struct AppCheckToken: ProtoMessage, Hashable {
    /// The signed JWT.
    public var token: String
    /// Time from minting to expiry, so that clients need not trust their clocks.
    public var ttl: ProtoDuration

    public init(token: String = "", ttl: ProtoDuration = .zero) {
        self.token = token
        self.ttl = ttl
    }
}

extension AppCheckToken: CBackedMessage {
    static let descriptor = MessageDescriptor("google.firebase.appcheck.v1.AppCheckToken")

    init(reading message: MessageReader) throws(GRPCStatus) {
        token = try message.string(1)
        ttl = try message.message(2, as: ProtoDuration.self) ?? .zero
    }

    func write(to message: MessageWriter) {
        message.string(1, token)
        message.message(2, ttl == .zero ? nil : ttl)
    }
}
