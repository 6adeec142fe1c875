public import Crypto

extension SigningKeySet {
    /// Every key of the set as a JWK, oldest first: the `PublicJwkSet` the JWKS endpoint publishes.
    public var jwks: [JWK] { entries.map(\.privateKey.publicKey.jwk) }

    /// The JWKS document, `{"keys":[…]}`, as UTF-8 JSON (RFC 7517 §5).
    public var jwksJSON: [UInt8] {
        Array("{\"keys\":[\(jwks.map(\.json).joined(separator: ","))]}".utf8)
    }
}
