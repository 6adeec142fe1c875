import Crypto

/// Checks custom tokens, the RS256 JWTs a backend signs with a service account key and exchanges for an App Check
/// token, by the rules of the Firebase Admin SDKs' token generator: `iss` = `sub` = the service account, `aud` =
/// the TokenExchangeService URL, `app_id` = the target app, `exp - iat` at most 5 minutes (they make it exactly
/// 300 s), and an optional `ttl` Duration between 30 minutes and 7 days.
public struct CustomTokenVerifier: Sendable {
    /// The audience every Admin SDK puts in custom tokens.
    public static let audience = "https://firebaseappcheck.googleapis.com/google.firebase.appcheck.v1.TokenExchangeService"
    /// The longest `exp - iat` accepted, in seconds.
    public static let maximumLifetime: Int64 = 300

    private let serviceAccounts: [ServiceAccountKey]
    /// How far in the future `iat` may be, in seconds.
    public let allowedClockSkew: Int64

    /// - Parameter serviceAccounts: the keys configured for one project.
    public init(serviceAccounts: [ServiceAccountKey], allowedClockSkew: Int64 = 60) {
        self.serviceAccounts = serviceAccounts.filter { $0.publicKey.algorithm == .rs256 }
        self.allowedClockSkew = allowedClockSkew
    }

    /// The claims of `token` if it is a valid custom token for `appID` at `now` (Unix seconds); otherwise the first
    /// reason it is not.
    public func verify(_ token: String, appID: String, now: Int64) throws(CustomTokenError) -> VerifiedCustomToken {
        guard let jws = CompactJWS(token) else { throw .malformed }
        guard jws.algorithm == SigningAlgorithm.rs256.jwsName else { throw .unsupportedAlgorithm }
        guard let claims = jws.claims, let issuer = claims.string("iss"), let subject = claims.string("sub"),
              let audience = claims.stringOrStrings("aud"), let tokenAppID = claims.string("app_id"),
              let issuedAt = claims.integer("iat"), let expiresAt = claims.integer("exp")
        else { throw .malformed }

        // The claims only choose which keys to try; nothing in them is trusted until one verifies.
        let candidates = serviceAccounts.filter { $0.email == nil || $0.email == issuer }
        guard !candidates.isEmpty else { throw .unknownServiceAccount }
        guard candidates.contains(where: { $0.publicKey.isValidSignature(jws.signature, for: jws.signingInput) }) else {
            throw .badSignature
        }

        guard issuer == subject, !issuer.isEmpty else { throw .wrongIssuer }
        guard audience.values == [Self.audience] else { throw .wrongAudience }
        guard tokenAppID == appID else { throw .wrongApp }
        guard now < expiresAt else { throw .expired }
        guard issuedAt <= now + allowedClockSkew else { throw .issuedInFuture }
        guard expiresAt >= issuedAt, expiresAt - issuedAt <= Self.maximumLifetime else { throw .lifetimeTooLong }
        var lifetime: TokenLifetime? = nil
        if claims.members["ttl"] != nil {
            guard let ttl = claims.string("ttl"), let parsed = TokenLifetime(duration: ttl) else { throw .badTTL }
            lifetime = parsed
        }
        return VerifiedCustomToken(
            serviceAccount: issuer, appID: tokenAppID, lifetime: lifetime, issuedAt: issuedAt, expiresAt: expiresAt)
    }
}
