/// What a valid App Check token says, once its signature and claims are checked.
public struct VerifiedAppCheckToken: Sendable, Equatable {
    /// `sub`: the Firebase app id.
    public let appID: String
    /// The project number, from `iss` (what follows the issuer prefix).
    public let projectNumber: String
    /// `aud`: `projects/<number>` and `projects/<id>`.
    public let audience: [String]
    /// `jti`: the token's unique id, under which its consumption is recorded.
    public let jti: String
    /// `kid` of the key that signed it.
    public let kid: String
    /// Unix seconds.
    public let issuedAt: Int64
    public let expiresAt: Int64

    public init(
        appID: String, projectNumber: String, audience: [String], jti: String, kid: String, issuedAt: Int64, expiresAt: Int64
    ) {
        self.appID = appID
        self.projectNumber = projectNumber
        self.audience = audience
        self.jti = jti
        self.kid = kid
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }
}
