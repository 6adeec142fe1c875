public import Crypto
import Observability

/// Mints App Check tokens: JWTs that the Firebase Admin SDKs and any JWT library accept against our JWKS.
///
/// Header `{"alg":"RS256"|"ES256","typ":"JWT","kid":…}`; claims `iss` = issuer prefix + project number, `sub` =
/// app id, `aud` = `["projects/<number>","projects/<id>"]`, `iat`, `exp`, `jti` (16 random bytes, base64url).
/// Everything but the signature is a few string appends; the header is encoded once per key.
public struct AppCheckTokenIssuer: Sendable {
    /// Firebase's issuer prefix; the Admin SDKs require `iss` to start with it.
    public static let firebaseIssuerPrefix = "https://firebaseappcheck.googleapis.com/"

    public let keys: SigningKeySet
    public let issuerPrefix: String

    public init(keys: SigningKeySet, issuerPrefix: String = Self.firebaseIssuerPrefix) {
        self.keys = keys
        self.issuerPrefix = issuerPrefix
    }

    /// A token for `appID` in the project `projectNumber`/`projectID`, signed by the newest key, valid from `now`
    /// (Unix seconds) for `lifetime`.
    public func mint(
        appID: String, projectNumber: String, projectID: String, lifetime: TokenLifetime, now: Int64
    ) throws(PrivateKeyError) -> MintedAppCheckToken {
        let signer = keys.signing
        let jti = Base64URL.encode(SecureRandom.bytes(count: 16))
        let expiresAt = now + lifetime.seconds
        var claims = "{\"iss\":"
        claims.reserveCapacity(256 + appID.utf8.count + issuerPrefix.utf8.count)
        JSONString.append(issuerPrefix + projectNumber, to: &claims)
        claims.append(",\"sub\":")
        JSONString.append(appID, to: &claims)
        claims.append(",\"aud\":[")
        JSONString.append("projects/" + projectNumber, to: &claims)
        claims.append(",")
        JSONString.append("projects/" + projectID, to: &claims)
        claims.append("],\"iat\":\(now),\"exp\":\(expiresAt),\"jti\":\"\(jti)\"}")

        var token = signer.encodedHeader
        token.reserveCapacity(token.count + claims.utf8.count * 4 / 3 + 400)
        token.append(UInt8(ascii: "."))
        Base64URL.append(Array(claims.utf8), to: &token)
        let signature = try signer.privateKey.sign(token)
        token.append(UInt8(ascii: "."))
        Base64URL.append(signature, to: &token)
        return MintedAppCheckToken(
            token: String(decoding: token, as: UTF8.self), lifetime: lifetime, issuedAt: now, expiresAt: expiresAt, jti: jti)
    }
}
