import Crypto

/// A secret that protects TLS session tickets (RFC 8446 §4.6.1; RFC 5077 §4 for the ticket's layout), shared by every
/// node of a cluster. OpenSSL writes and reads the tickets; this key gives it, through its ticket key callback, a
/// 16-byte key name, an AES-256-CBC key and an HMAC-SHA256 key, each derived from the secret and the id with
/// HMAC-SHA256, so one secret never serves two purposes.
public struct TLSSessionTicketKey: Sendable, Equatable {
    /// Travels in every ticket (as the key name), so a node finds the key that opens it after a rotation.
    public let id: UInt32
    /// The smallest secret accepted: 256 bits.
    public static let minimumSecretCount = 32

    /// The first 16 bytes of a ticket: which key protects it.
    let name: [UInt8]
    let encryptionKey: [UInt8]
    let macKey: [UInt8]

    /// nil when `secret` is shorter than ``minimumSecretCount``.
    public init?(id: UInt32, secret: [UInt8]) {
        guard secret.count >= Self.minimumSecretCount else { return nil }
        self.id = id
        let idBytes = (0..<4).map { UInt8(truncatingIfNeeded: id >> (24 - 8 * $0)) }
        // The name depends on the id alone: it is public, in every ticket.
        name = Array(SHA256.hash(Array("attestd session ticket key name".utf8) + idBytes).prefix(16))
        encryptionKey = HMACSHA256.authenticate(Array("attestd session ticket AES-256-CBC".utf8) + idBytes, key: secret)
        macKey = HMACSHA256.authenticate(Array("attestd session ticket HMAC-SHA256".utf8) + idBytes, key: secret)
    }

    /// A key of fresh random bytes, for a listener configured with none.
    static func random() -> TLSSessionTicketKey {
        TLSSessionTicketKey(id: 0, secret: SecureRandom.bytes(count: 32))!
    }
}
