import Crypto

/// Stateless App Attest challenges: random bytes, an expiry and a binding to the app, authenticated with
/// HMAC-SHA256 under a key the whole cluster shares. Issuing one writes nothing anywhere; any node can later check
/// it. Single use is the state store's job (it records the challenge's `nonce` when it is consumed).
///
/// Layout (74 bytes): `version(1) | keyID(1) | expiresAt(8, big-endian unix seconds) | nonce(32) | tag(32)`, where
/// `tag = HMAC(key, "attestd challenge" | version | keyID | expiresAt | nonce | appID)`. The app id is covered by
/// the tag but not carried, so a challenge issued to one app is refused for any other.
public struct ChallengeCodec: Sendable {
    public static let byteCount = 74
    static let version: UInt8 = 1
    static let nonceCount = 32
    private static let domain = Array("attestd challenge".utf8)

    /// Each key with its HMAC state prepared once.
    private let keys: [(id: UInt8, mac: HMACKey)]
    private let signingKey: (id: UInt8, mac: HMACKey)
    /// How long a challenge stays valid after it is issued.
    public let ttlSeconds: Int64

    /// - Parameters:
    ///   - keys: every key that may open a challenge; the last one issues new challenges.
    ///   - ttlSeconds: the challenge lifetime (300 s by default, as Firebase's fixtures show).
    public init(keys: [ChallengeKey], ttlSeconds: Int64 = 300) {
        precondition(!keys.isEmpty, "a challenge codec needs at least one key")
        self.keys = keys.map { (id: $0.id, mac: HMACKey($0.secret)) }
        self.signingKey = self.keys[self.keys.count - 1]
        self.ttlSeconds = ttlSeconds
    }

    /// A new challenge for `appID`, valid until `now + ttlSeconds`.
    public func issue(appID: String, now: Int64) -> [UInt8] {
        var challenge = [UInt8]()
        challenge.reserveCapacity(Self.byteCount)
        challenge.append(Self.version)
        challenge.append(signingKey.id)
        appendBigEndian(UInt64(bitPattern: now + ttlSeconds), to: &challenge)
        challenge.append(contentsOf: repeatElement(0, count: Self.nonceCount))
        challenge.withUnsafeMutableBytes { SecureRandom.fill(UnsafeMutableRawBufferPointer(rebasing: $0[10...])) }
        challenge.append(contentsOf: tag(body: challenge[...], appID: appID, key: signingKey))
        return challenge
    }

    /// Checks that `challenge` was issued by a key we hold, for `appID`, and has not expired.
    /// - Returns: the challenge's facts, among them the nonce that identifies it for single use.
    public func open(_ challenge: [UInt8], appID: String, now: Int64) throws(ChallengeError) -> OpenedChallenge {
        guard challenge.count == Self.byteCount, challenge[0] == Self.version else { throw .malformed }
        guard let key = keys.last(where: { $0.id == challenge[1] }) else { throw .unknownKey }
        let bodyCount = Self.byteCount - HMACSHA256.tagCount
        let expected = tag(body: challenge[..<bodyCount], appID: appID, key: key)
        guard ConstantTime.equals(expected, challenge[bodyCount...]) else { throw .forged }
        let expiresAt = Int64(bitPattern: challenge[2..<10].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        guard now < expiresAt else { throw .expired }
        return OpenedChallenge(nonce: Array(challenge[10..<(10 + Self.nonceCount)]), expiresAt: expiresAt)
    }

    private func tag(body: ArraySlice<UInt8>, appID: String, key: (id: UInt8, mac: HMACKey)) -> [UInt8] {
        var message = Self.domain
        message.reserveCapacity(message.count + body.count + appID.utf8.count)
        message.append(contentsOf: body)
        message.append(contentsOf: appID.utf8)
        return key.mac.authenticate(message)
    }

    private func appendBigEndian(_ value: UInt64, to bytes: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
}

/// What a valid challenge says about itself.
public struct OpenedChallenge: Sendable, Equatable {
    /// The random part: unique per challenge, the key under which single use is recorded.
    public let nonce: [UInt8]
    /// Unix seconds after which the challenge is refused; single-use records can be dropped then.
    public let expiresAt: Int64
}
