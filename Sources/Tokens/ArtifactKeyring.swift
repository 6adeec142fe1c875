public import Crypto

/// Seals and opens artifacts with AES-256-GCM under versioned keys: the newest (last) key seals, every key opens,
/// so the key rotates by appending a new version and dropping the old one once its artifacts no longer matter.
/// Every node of a cluster holds the same keyring, so any node opens what another sealed.
///
/// Layout: `format(1) | keyVersion(1) | nonce(12) | AES-GCM(plaintext) | tag(16)`, with the first two bytes (and
/// a domain string) as additional authenticated data and the plaintext
/// `environment(1) | attestedAt(8, big-endian) | keyID(32) | publicKey(65) | appIDCount(1) | appID`:
/// 137 bytes plus the app id, at most 392 bytes.
public struct ArtifactKeyring: Sendable {
    /// The largest artifact the contract allows.
    public static let maximumCount = 512
    static let format: UInt8 = 1
    static let headerCount = 2
    static let fixedPlaintextCount = 1 + 8 + Artifact.keyIDCount + Artifact.publicKeyCount + 1
    private static let domain = Array("attestd artifact".utf8)

    private let keys: [ArtifactKey]
    private let sealingKey: ArtifactKey

    /// Nil when `keys` is empty or two keys share a version. The last key seals.
    public init?(keys: [ArtifactKey]) {
        guard let last = keys.last, Set(keys.map(\.version)).count == keys.count else { return nil }
        self.keys = keys
        self.sealingKey = last
    }

    /// The versions held, oldest first.
    public var versions: [UInt8] { keys.map(\.version) }

    /// `artifact` sealed under the newest key with a fresh random nonce.
    ///
    /// - Throws: `internalFailure` when OpenSSL cannot seal (memory exhaustion): nothing about the artifact can.
    public func seal(_ artifact: Artifact) throws(CryptoError) -> [UInt8] {
        var plaintext = [UInt8]()
        plaintext.reserveCapacity(Self.fixedPlaintextCount + artifact.appID.utf8.count)
        plaintext.append(artifact.environment.rawValue)
        let attestedAt = UInt64(bitPattern: artifact.attestedAt)
        for shift in stride(from: 56, through: 0, by: -8) {
            plaintext.append(UInt8(truncatingIfNeeded: attestedAt >> UInt64(shift)))
        }
        plaintext.append(contentsOf: artifact.keyID)
        plaintext.append(contentsOf: artifact.publicKey)
        plaintext.append(UInt8(artifact.appID.utf8.count))
        plaintext.append(contentsOf: artifact.appID.utf8)

        let header = [Self.format, sealingKey.version]
        let nonce = SecureRandom.bytes(count: AESGCM.nonceCount)
        var sealed = header
        sealed.reserveCapacity(Self.headerCount + AESGCM.nonceCount + plaintext.count + AESGCM.tagCount)
        sealed.append(contentsOf: nonce)
        sealed.append(
            contentsOf: try AESGCM.seal(plaintext, key: sealingKey.secret, nonce: nonce, authenticating: Self.domain + header))
        return sealed
    }

    /// The artifact sealed in `bytes`, if a key we hold sealed it and nothing was changed.
    public func open(_ bytes: [UInt8]) throws(ArtifactError) -> Artifact {
        let minimum = Self.headerCount + AESGCM.nonceCount + Self.fixedPlaintextCount + 1 + AESGCM.tagCount
        guard bytes.count >= minimum, bytes.count <= Self.maximumCount, bytes[0] == Self.format else { throw .malformed }
        guard let key = keys.last(where: { $0.version == bytes[1] }) else { throw .unknownKeyVersion }
        let nonceEnd = Self.headerCount + AESGCM.nonceCount
        guard let plaintext = AESGCM.open(
            bytes[nonceEnd...], key: key.secret, nonce: bytes[Self.headerCount..<nonceEnd],
            authenticating: Self.domain + bytes[..<Self.headerCount])
        else { throw .tampered }
        return try Self.decode(plaintext)
    }

    /// Opens `bytes` and checks that it was issued to `appID`.
    public func open(_ bytes: [UInt8], appID: String) throws(ArtifactError) -> Artifact {
        let artifact = try open(bytes)
        guard artifact.appID == appID else { throw .wrongApp }
        return artifact
    }

    private static func decode(_ plaintext: [UInt8]) throws(ArtifactError) -> Artifact {
        // Authentic bytes were written by `seal`, so these checks only fail for a keyring shared with a buggy writer.
        guard plaintext.count > fixedPlaintextCount,
              let environment = Artifact.Environment(rawValue: plaintext[0]),
              Int(plaintext[fixedPlaintextCount - 1]) == plaintext.count - fixedPlaintextCount
        else { throw .malformed }
        let attestedAt = Int64(bitPattern: plaintext[1..<9].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        let keyIDEnd = 9 + Artifact.keyIDCount
        guard let appID = String(validating: plaintext[fixedPlaintextCount...], as: UTF8.self),
              let artifact = Artifact(
                appID: appID, keyID: Array(plaintext[9..<keyIDEnd]),
                publicKey: Array(plaintext[keyIDEnd..<(keyIDEnd + Artifact.publicKeyCount)]),
                environment: environment, attestedAt: attestedAt)
        else { throw .malformed }
        return artifact
    }
}
