import Basics
public import Crypto

/// The token signing keys: the newest (last) key of the configured algorithm signs, and all are published in the
/// JWKS, so a key rotates by appending its successor, waiting for verifiers to refresh the JWKS (at most 6 h), then
/// removing the old key after the longest token lifetime. Tokens made by any key in the set still verify. A key of
/// another algorithm is published but never signs: the algorithm is chosen by configuration, never by which key
/// happens to be last (the Firebase Admin SDKs refuse every ES256 token).
public struct SigningKeySet: Sendable {
    /// A key with the parts of every token it signs that do not change: its `kid` and encoded JWS header.
    public struct Entry: Sendable {
        public let privateKey: PrivateKey
        /// The RFC 7638 thumbprint of the public key.
        public var kid: String { privateKey.publicKey.jwk.kid }
        /// `base64url({"alg":…,"typ":"JWT","kid":…})`, computed once.
        let encodedHeader: [UInt8]

        init(_ privateKey: PrivateKey) {
            self.privateKey = privateKey
            let jwk = privateKey.publicKey.jwk
            let header = "{\"alg\":\"\(jwk.alg)\",\"typ\":\"JWT\",\"kid\":\"\(jwk.kid)\"}"
            var encoded = [UInt8]()
            Base64.url.append(Array(header.utf8), to: &encoded)
            self.encodedHeader = encoded
        }
    }

    /// Every key, oldest first.
    public let entries: [Entry]
    /// The key that signs new tokens: the last one of the configured algorithm.
    public let signing: Entry
    /// The public keys, as `AppCheckTokenVerifier` takes them.
    public var publicKeys: [JWSPublicKey] { entries.map(\.privateKey.publicKey) }

    /// - Parameters:
    ///   - keys: oldest first.
    ///   - algorithm: the tokens' algorithm; the last key of it signs.
    public init(keys: [PrivateKey], signingWith algorithm: SigningAlgorithm) throws(SigningKeySetError) {
        guard !keys.isEmpty else { throw .empty }
        let kids = keys.map(\.publicKey.jwk.kid)
        guard Set(kids).count == kids.count else { throw .duplicateKey }
        let entries = keys.map(Entry.init)
        guard let signing = entries.last(where: { $0.privateKey.algorithm == algorithm }) else {
            throw SigningKeySetError.noKeyForAlgorithm.with(
                detail: "tokens are signed with \(algorithm.jwsName), and no key of it is listed")
        }
        self.entries = entries
        self.signing = signing
    }

    /// The key whose `kid` this is, if it is in the set.
    public func entry(kid: String) -> Entry? {
        entries.first { $0.kid == kid }
    }
}
