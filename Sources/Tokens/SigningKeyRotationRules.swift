/// The two durations a schedule of signing keys is checked and computed with.
public struct SigningKeyRotationRules: Sendable, Hashable {
    /// How long the Firebase Admin SDKs for Node.js and Go keep a fetched JWKS, whatever its `max-age`; they do not
    /// fetch it again for a `kid` they do not know.
    public static let adminSDKJWKSCacheSeconds: Int64 = 21_600

    /// How long a timed key must be published before it signs (`signFrom` − `publishFrom`, at least).
    public let minimumPublicationSeconds: Int64
    /// How long a key that signed stays published after its successor starts signing; then it is withdrawn.
    public let retentionSeconds: Int64

    public init(minimumPublicationSeconds: Int64, retentionSeconds: Int64) {
        self.minimumPublicationSeconds = minimumPublicationSeconds
        self.retentionSeconds = retentionSeconds
    }

    /// The rules for a JWKS served with `max-age` `jwksMaxAgeSeconds`, tokens living at most
    /// `longestTokenLifetimeSeconds`, and nodes whose clocks differ by up to `clockSkewSeconds`.
    ///
    /// Twice the skew, both ways: a node whose clock is behind publishes a key that much late while one whose clock
    /// is ahead signs with it that much early; likewise a lagging node signs with the old key a little after its
    /// successor's `signFrom` while a leading one withdraws it a little early.
    public init(jwksMaxAgeSeconds: Int64, longestTokenLifetimeSeconds: Int64, clockSkewSeconds: Int64) {
        self.init(
            minimumPublicationSeconds: max(Self.adminSDKJWKSCacheSeconds, jwksMaxAgeSeconds) + 2 * clockSkewSeconds,
            retentionSeconds: longestTokenLifetimeSeconds + 2 * clockSkewSeconds)
    }

    /// The rules with the longest lifetime any token may have (7 days), a 6-hour JWKS and a minute of skew: safe for
    /// any configuration.
    public static let conservative = SigningKeyRotationRules(
        jwksMaxAgeSeconds: adminSDKJWKSCacheSeconds, longestTokenLifetimeSeconds: TokenLifetime.allowedSeconds.upperBound,
        clockSkewSeconds: 60)
}
