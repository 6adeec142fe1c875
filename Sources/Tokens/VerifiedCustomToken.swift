/// What a valid custom token says.
public struct VerifiedCustomToken: Sendable, Equatable {
    /// `iss` (= `sub`): the service account that signed it.
    public let serviceAccount: String
    /// `app_id`: the app the App Check token is for.
    public let appID: String
    /// `ttl`, when the token asks for a lifetime of the App Check token; otherwise the app's configured one applies.
    public let lifetime: TokenLifetime?
    /// Unix seconds.
    public let issuedAt: Int64
    public let expiresAt: Int64

    public init(serviceAccount: String, appID: String, lifetime: TokenLifetime?, issuedAt: Int64, expiresAt: Int64) {
        self.serviceAccount = serviceAccount
        self.appID = appID
        self.lifetime = lifetime
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }
}
