public import Crypto

extension SigningKeySet {
    /// The keys published at `time` as JWKs, in the order configured: the `PublicJwkSet` the JWKS endpoint serves then.
    public func jwks(at time: Int64) -> [JWK] { published(at: time).map(\.privateKey.publicKey.jwk) }

    /// The JWKS document at `time`, `{"keys":[…]}`, as UTF-8 JSON (RFC 7517 §5).
    public func jwksJSON(at time: Int64) -> [UInt8] {
        Array("{\"keys\":[\(jwks(at: time).map(\.json).joined(separator: ","))]}".utf8)
    }
}
