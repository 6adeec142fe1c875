public import Crypto

/// Checks App Check tokens made by `AppCheckTokenIssuer` with any key of the set, as the Firebase Admin SDKs do
/// and a little stricter: `typ` JWT, `alg` that of the key named by `kid`, the signature, `exp` (no leeway), `iat`
/// not in the future beyond a small clock skew, `iss` our prefix plus a project, `aud` an array naming the project.
public struct AppCheckTokenVerifier: Sendable {
    private struct Claims: Decodable {
        let iss: String
        let sub: String
        let aud: Audience
        let iat: Int64
        let exp: Int64
        let jti: String
    }

    private let keys: [String: JWSPublicKey]
    public let issuerPrefix: String
    /// How far in the future `iat` may be, in seconds: clocks of a cluster's nodes differ a little.
    public let allowedClockSkew: Int64

    /// - Parameter keys: every public key whose tokens are accepted, looked up by their RFC 7638 `kid`.
    public init(keys: [JWSPublicKey], issuerPrefix: String = AppCheckTokenIssuer.firebaseIssuerPrefix, allowedClockSkew: Int64 = 60) {
        self.keys = Dictionary(keys.map { ($0.jwk.kid, $0) }, uniquingKeysWith: { first, _ in first })
        self.issuerPrefix = issuerPrefix
        self.allowedClockSkew = allowedClockSkew
    }

    /// A verifier for the tokens of `keys` (all of them, so tokens from rotated-out signers still pass while their
    /// key is in the set).
    public init(keys: SigningKeySet, issuerPrefix: String = AppCheckTokenIssuer.firebaseIssuerPrefix, allowedClockSkew: Int64 = 60) {
        self.init(keys: keys.publicKeys, issuerPrefix: issuerPrefix, allowedClockSkew: allowedClockSkew)
    }

    /// The claims of `token` if it is valid at `now` (Unix seconds) for `project` (its number or its id, as in
    /// `aud`); otherwise the first reason it is not.
    public func verify(_ token: String, project: String, now: Int64) throws(AppCheckTokenError) -> VerifiedAppCheckToken {
        guard let jws = CompactJWS(token) else { throw .malformed }
        guard let algorithm = SigningAlgorithm(rawValue: jws.header.alg) else { throw .unsupportedAlgorithm }
        guard jws.header.typ == "JWT" else { throw .wrongType }
        guard let kid = jws.header.kid, let key = keys[kid] else { throw .unknownKey }
        guard key.algorithm == algorithm else { throw .unsupportedAlgorithm }
        guard key.isValidSignature(jws.signature, for: jws.signingInput) else { throw .badSignature }

        guard let claims = jws.claims(Claims.self), !claims.sub.isEmpty else { throw .malformed }
        guard now < claims.exp else { throw .expired }
        guard claims.iat <= now + allowedClockSkew else { throw .issuedInFuture }
        guard claims.iss.hasPrefix(issuerPrefix), claims.iss.count > issuerPrefix.count else { throw .wrongIssuer }
        guard claims.aud.isArray, claims.aud.values.contains("projects/" + project) else { throw .wrongAudience }
        return VerifiedAppCheckToken(
            appID: claims.sub, projectNumber: String(claims.iss.dropFirst(issuerPrefix.count)), audience: claims.aud.values,
            jti: claims.jti, kid: kid, issuedAt: claims.iat, expiresAt: claims.exp)
    }
}
