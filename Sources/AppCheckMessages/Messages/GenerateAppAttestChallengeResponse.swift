import GRPC

/// `google.firebase.appcheck.v1.GenerateAppAttestChallengeResponse`: A one-time App Attest challenge.
public struct GenerateAppAttestChallengeResponse: ProtoMessage, Hashable {
    /// Single use, bound to the app that asked for it.
    public var challenge: [UInt8]
    /// Time from minting to expiry. The iOS SDK ignores it.
    public var ttl: ProtoDuration

    public init(challenge: [UInt8] = [], ttl: ProtoDuration = .zero) {
        self.challenge = challenge
        self.ttl = ttl
    }
}

extension GenerateAppAttestChallengeResponse: CBackedMessage {
    static let descriptor = MessageDescriptor("google.firebase.appcheck.v1.GenerateAppAttestChallengeResponse")

    init(reading message: MessageReader) throws(GRPCStatus) {
        challenge = message.bytes(1)
        ttl = try message.message(2, as: ProtoDuration.self) ?? .zero
    }

    func write(to message: MessageWriter) {
        message.bytes(1, challenge)
        message.message(2, ttl == .zero ? nil : ttl)
    }
}
