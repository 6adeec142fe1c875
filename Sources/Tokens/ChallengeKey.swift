/// A secret that authenticates challenges. Every node of a cluster holds the same keys, so any node can check a
/// challenge that another issued. The one-byte id travels in the challenge, so keys can rotate: the newest key
/// issues, and the older ones still open what they issued until it expires.
public struct ChallengeKey: Sendable {
    public let id: UInt8
    public let secret: [UInt8]

    /// The smallest secret accepted: 256 bits, the HMAC-SHA256 block of security.
    public static let minimumSecretCount = 32

    public init?(id: UInt8, secret: [UInt8]) {
        guard secret.count >= Self.minimumSecretCount else { return nil }
        self.id = id
        self.secret = secret
    }
}
