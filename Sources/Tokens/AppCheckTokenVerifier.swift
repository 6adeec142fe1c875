public import Crypto

/// Checks App Check tokens made by `AppCheckTokenIssuer` with any key published at the time of the check, as the
/// Firebase Admin SDKs do and a little stricter: `typ` JWT, `alg` that of the key named by `kid`, the signature, `exp` (no leeway), `iat`
/// not in the future beyond a small clock skew, `iss` our prefix plus a project, `aud` an array naming the project.
public struct AppCheckTokenVerifier: Sendable {
    /// Each key by its `kid`, with when its tokens are accepted: a dictionary lookup and a comparison per token.
    private let keys: [String: (key: JWSPublicKey, accepted: Range<Int64>)]
    public let issuerPrefix: String
    /// How far in the future `iat` may be, in seconds: clocks of a cluster's nodes differ a little.
    public let allowedClockSkew: Int64
    /// The default `allowedClockSkew`, one minute; key schedules allow for it too (`SigningKeyRotationRules`).
    public static let defaultAllowedClockSkew: Int64 = 60

    /// - Parameter keys: every public key whose tokens are accepted at any time, looked up by their RFC 7638 `kid`.
    public init(
        keys: [JWSPublicKey], issuerPrefix: String = AppCheckTokenIssuer.firebaseIssuerPrefix,
        allowedClockSkew: Int64 = defaultAllowedClockSkew
    ) {
        self.init(keys: keys.map { ($0, Int64.min..<Int64.max) }, issuerPrefix: issuerPrefix, allowedClockSkew: allowedClockSkew)
    }

    /// A verifier for the tokens of `keys`, each accepted while it is published (next, current or retired), so
    /// tokens of a former signer pass until the last of them has expired.
    public init(
        keys: SigningKeySet, issuerPrefix: String = AppCheckTokenIssuer.firebaseIssuerPrefix,
        allowedClockSkew: Int64 = defaultAllowedClockSkew
    ) {
        self.init(keys: keys.entries.map { ($0.privateKey.publicKey, $0.published) }, issuerPrefix: issuerPrefix,
                  allowedClockSkew: allowedClockSkew)
    }

    private init(keys: [(JWSPublicKey, Range<Int64>)], issuerPrefix: String, allowedClockSkew: Int64) {
        self.keys = Dictionary(keys.map { ($0.0.jwk.kid, (key: $0.0, accepted: $0.1)) }, uniquingKeysWith: { first, _ in first })
        self.issuerPrefix = issuerPrefix
        self.allowedClockSkew = allowedClockSkew
    }

    /// The claims of `token` if it is valid at `now` (Unix seconds) for `project` (its number or its id, bare or as
    /// the resource name `projects/<number or id>`); otherwise the first reason it is not.
    public func verify(_ token: String, project: String, now: Int64) throws(AppCheckTokenError) -> VerifiedAppCheckToken {
        guard let jws = CompactJWS(token) else { throw .malformed }
        guard let algorithm = SigningAlgorithm(rawValue: jws.algorithm) else { throw .unsupportedAlgorithm }
        guard jws.type == "JWT" else { throw .wrongType }
        // A key not published now is unknown, as it is to a verifier holding the JWKS of now.
        guard let kid = jws.keyID, let known = keys[kid], known.accepted.contains(now) else { throw .unknownKey }
        let key = known.key
        guard key.algorithm == algorithm else { throw .unsupportedAlgorithm }
        guard key.isValidSignature(jws.signature, for: jws.signingInput) else { throw .badSignature }

        guard let claims = jws.claims, let issuer = claims.string("iss"), let appID = claims.string("sub"), !appID.isEmpty,
              let audience = claims.stringOrStrings("aud"), let issuedAt = claims.integer("iat"),
              let expiresAt = claims.integer("exp"), let jti = claims.string("jti")
        else { throw .malformed }
        guard now < expiresAt else { throw .expired }
        guard issuedAt <= now + allowedClockSkew else { throw .issuedInFuture }
        guard issuer.hasPrefix(issuerPrefix), issuer.count > issuerPrefix.count else { throw .wrongIssuer }
        let projectName = project.hasPrefix("projects/") ? project : "projects/" + project
        guard audience.isArray, audience.values.contains(projectName) else { throw .wrongAudience }
        return VerifiedAppCheckToken(
            appID: appID, projectNumber: String(issuer.dropFirst(issuerPrefix.count)), audience: audience.values,
            jti: jti, kid: kid, issuedAt: issuedAt, expiresAt: expiresAt)
    }
}
