import Config
import Tokens

extension SigningKeyRotationRules {
    /// The rules for `configuration`: keys published at least the JWKS's `max-age` (and the Admin SDKs' 6 hours)
    /// before they sign, and retired keys kept for the longest lifetime a token of this configuration can have, each
    /// with the clock skew the token verifier allows.
    init(_ configuration: Configuration) {
        self.init(
            jwksMaxAgeSeconds: JWKSHandler.maxAgeSeconds,
            longestTokenLifetimeSeconds: Self.longestTokenLifetimeSeconds(configuration),
            clockSkewSeconds: AppCheckTokenVerifier.defaultAllowedClockSkew)
    }

    /// The longest lifetime of a token attestd can mint under `configuration`: the longest `tokenTtlSeconds` of its
    /// apps, or 7 days when a project takes custom tokens (their `ttl` claim chooses up to that).
    static func longestTokenLifetimeSeconds(_ configuration: Configuration) -> Int64 {
        if configuration.projects.contains(where: { !$0.serviceAccounts.isEmpty }) {
            return TokenLifetime.allowedSeconds.upperBound
        }
        let apps = configuration.projects.flatMap(\.apps).map { Int64($0.tokenTTLSeconds) }
        return max(apps.max() ?? TokenLifetime.default.seconds, TokenLifetime.limitedUse.seconds)
    }
}
