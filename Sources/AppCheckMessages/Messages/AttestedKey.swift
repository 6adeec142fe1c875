import GRPC

/// `attestd.v1.AttestedKey`: What attestd knows of an attested App Attest key.
public struct AttestedKey: ProtoMessage, Hashable {
    /// SHA-256 of the public key.
    public var keyID: [UInt8]
    /// `projects/{project number}/apps/{app id}`.
    public var app: String
    /// The App Attest environment of the attestation.
    public var environment: AttestationEnvironment
    /// When attestd accepted the attestation.
    public var firstAttestedTime: ProtoTimestamp?
    /// When attestd last accepted an assertion with the key.
    public var lastSeenTime: ProtoTimestamp?
    /// The last accepted assertion counter.
    public var counter: UInt32
    /// Apple's risk metric from the latest receipt; 0 when no receipt was refreshed yet.
    public var riskMetric: UInt32
    /// Creation time of the latest receipt.
    public var receiptCreationTime: ProtoTimestamp?
    /// Not-before time of the latest receipt.
    public var receiptNotBeforeTime: ProtoTimestamp?
    /// Expiration time of the latest receipt.
    public var receiptExpirationTime: ProtoTimestamp?
    /// Whether assertions with the key are refused.
    public var revoked: Bool
    /// When the key was revoked.
    public var revokeTime: ProtoTimestamp?
    /// Why the key was revoked.
    public var revokeReason: String

    public init(
        keyID: [UInt8] = [],
        app: String = "",
        environment: AttestationEnvironment = .init(rawValue: 0),
        firstAttestedTime: ProtoTimestamp? = nil,
        lastSeenTime: ProtoTimestamp? = nil,
        counter: UInt32 = 0,
        riskMetric: UInt32 = 0,
        receiptCreationTime: ProtoTimestamp? = nil,
        receiptNotBeforeTime: ProtoTimestamp? = nil,
        receiptExpirationTime: ProtoTimestamp? = nil,
        revoked: Bool = false,
        revokeTime: ProtoTimestamp? = nil,
        revokeReason: String = ""
    ) {
        self.keyID = keyID
        self.app = app
        self.environment = environment
        self.firstAttestedTime = firstAttestedTime
        self.lastSeenTime = lastSeenTime
        self.counter = counter
        self.riskMetric = riskMetric
        self.receiptCreationTime = receiptCreationTime
        self.receiptNotBeforeTime = receiptNotBeforeTime
        self.receiptExpirationTime = receiptExpirationTime
        self.revoked = revoked
        self.revokeTime = revokeTime
        self.revokeReason = revokeReason
    }
}

extension AttestedKey: CBackedMessage {
    static let descriptor = MessageDescriptor("attestd.v1.AttestedKey")

    init(reading message: MessageReader) throws(GRPCStatus) {
        keyID = message.bytes(1)
        app = try message.string(2)
        environment = AttestationEnvironment(rawValue: message.int32(3))
        firstAttestedTime = try message.message(4, as: ProtoTimestamp.self)
        lastSeenTime = try message.message(5, as: ProtoTimestamp.self)
        counter = message.uint32(6)
        riskMetric = message.uint32(7)
        receiptCreationTime = try message.message(8, as: ProtoTimestamp.self)
        receiptNotBeforeTime = try message.message(9, as: ProtoTimestamp.self)
        receiptExpirationTime = try message.message(10, as: ProtoTimestamp.self)
        revoked = message.bool(11)
        revokeTime = try message.message(12, as: ProtoTimestamp.self)
        revokeReason = try message.string(13)
    }

    func write(to message: MessageWriter) {
        message.bytes(1, keyID)
        message.string(2, app)
        message.int32(3, environment.rawValue)
        message.message(4, firstAttestedTime)
        message.message(5, lastSeenTime)
        message.uint32(6, counter)
        message.uint32(7, riskMetric)
        message.message(8, receiptCreationTime)
        message.message(9, receiptNotBeforeTime)
        message.message(10, receiptExpirationTime)
        message.bool(11, revoked)
        message.message(12, revokeTime)
        message.string(13, revokeReason)
    }
}
