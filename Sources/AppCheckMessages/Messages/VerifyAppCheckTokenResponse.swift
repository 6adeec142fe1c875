/// `google.firebase.appcheck.v1.VerifyAppCheckTokenResponse`: Whether the token had been consumed before this call.
public struct VerifyAppCheckTokenResponse: ProtoMessage, Hashable {
    /// False on the first call for a token, true on every later call.
    public var alreadyConsumed: Bool

    public init(alreadyConsumed: Bool = false) {
        self.alreadyConsumed = alreadyConsumed
    }
}

extension VerifyAppCheckTokenResponse: CBackedMessage {
    static let descriptor = MessageDescriptor("google.firebase.appcheck.v1.VerifyAppCheckTokenResponse")

    init(reading message: MessageReader) {
        alreadyConsumed = message.bool(1)
    }

    func write(to message: MessageWriter) {
        message.bool(1, alreadyConsumed)
    }
}
