import Basics
public import Crypto

/// The token signing keys: the newest (last) signs, and all are published in the JWKS, so a key rotates by
/// appending its successor, waiting for verifiers to refresh the JWKS (at most 6 h), then removing the old key
/// after the longest token lifetime. Tokens made by any key in the set still verify.
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
    /// The key that signs new tokens: the last one.
    public var signing: Entry { entries[entries.count - 1] }
    /// The public keys, as `AppCheckTokenVerifier` takes them.
    public var publicKeys: [JWSPublicKey] { entries.map(\.privateKey.publicKey) }

    /// - Parameter keys: oldest first; the last one signs.
    public init(keys: [PrivateKey]) throws(SigningKeySetError) {
        guard !keys.isEmpty else { throw .empty }
        let kids = keys.map(\.publicKey.jwk.kid)
        guard Set(kids).count == kids.count else { throw .duplicateKey }
        self.entries = keys.map(Entry.init)
    }

    /// The keys in PEM `texts`, oldest first.
    public init(pems texts: [String]) throws(SigningKeySetError) {
        var keys = [PrivateKey]()
        for (index, text) in texts.enumerated() {
            do {
                keys.append(try PrivateKey(pem: text))
            } catch {
                throw SigningKeySetError.invalidKey.with(detail: "key \(index): \(error)")
            }
        }
        try self.init(keys: keys)
    }

    /// The key whose `kid` this is, if it is in the set.
    public func entry(kid: String) -> Entry? {
        entries.first { $0.kid == kid }
    }
}
