/// An AES-256-GCM key that seals artifacts, with the one-byte version that names it inside every artifact it
/// sealed, so the key can rotate while older artifacts still open.
public struct ArtifactKey: Sendable {
    public let version: UInt8
    let secret: [UInt8]

    /// Nil unless `secret` is exactly 32 bytes.
    public init?(version: UInt8, secret: [UInt8]) {
        guard secret.count == 32 else { return nil }
        self.version = version
        self.secret = secret
    }
}
