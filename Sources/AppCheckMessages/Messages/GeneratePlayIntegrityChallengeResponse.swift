import GRPC

/// `google.firebase.appcheck.v1.GeneratePlayIntegrityChallengeResponse`: Play Integrity; attestd answers
/// UNIMPLEMENTED.
public struct GeneratePlayIntegrityChallengeResponse: ProtoMessage, Hashable {
    public var challenge: String
    public var ttl: ProtoDuration

    public init(challenge: String = "", ttl: ProtoDuration = .zero) {
        self.challenge = challenge
        self.ttl = ttl
    }
}

extension GeneratePlayIntegrityChallengeResponse: CBackedMessage {
    static let descriptor = MessageDescriptor("google.firebase.appcheck.v1.GeneratePlayIntegrityChallengeResponse")

    init(reading message: MessageReader) throws(GRPCStatus) {
        challenge = try message.string(1)
        ttl = try message.message(2, as: ProtoDuration.self) ?? .zero
    }

    func write(to message: MessageWriter) {
        message.string(1, challenge)
        message.message(2, ttl == .zero ? nil : ttl)
    }
}
