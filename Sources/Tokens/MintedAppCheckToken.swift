/// An App Check token just minted, with what the response and the replay table need.
public struct MintedAppCheckToken: Sendable, Equatable {
    /// The JWT, for `AppCheckToken.token`.
    public let token: String
    /// `exp - iat`, for `AppCheckToken.ttl`.
    public let lifetime: TokenLifetime
    /// Unix seconds.
    public let issuedAt: Int64
    public let expiresAt: Int64
    /// The token's unique id (`jti`).
    public let jti: String
}
