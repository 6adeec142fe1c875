import Basics
import Crypto

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

    /// A token for `appID` in the project `projectNumber`/`projectID`, signed by the key that signs at `now`, valid from `now`
    /// (Unix seconds) for `lifetime`. With `riskMetric`, the token also carries the claim `risk_metric` (Apple's
    /// fraud-risk metric of the App Attest key, for apps that ask for it).
    public func mint(
        appID: String, projectNumber: String, projectID: String, lifetime: TokenLifetime, now: Int64,
        riskMetric: Int? = nil
    ) throws(TokenSigningError) -> MintedAppCheckToken {
        guard let signer = keys.signer(at: now) else { throw TokenSigningError.noSigningKey.with(detail: "at \(now)") }
        var jtiBytes = [UInt8]()
        Base64.url.append(SecureRandom.bytes(count: 16), to: &jtiBytes)
        let expiresAt = now + lifetime.seconds

        var claims = [UInt8]()
        claims.reserveCapacity(192 + 2 * appID.utf8.count + 2 * issuerPrefix.utf8.count + 4 * projectID.utf8.count)
        JSONBytes.appendRaw("{\"iss\":", to: &claims)
        JSONBytes.appendString(issuerPrefix, projectNumber, to: &claims)
        JSONBytes.appendRaw(",\"sub\":", to: &claims)
        JSONBytes.appendString(appID, to: &claims)
        JSONBytes.appendRaw(",\"aud\":[", to: &claims)
        JSONBytes.appendString("projects/", projectNumber, to: &claims)
        JSONBytes.appendRaw(",", to: &claims)
        JSONBytes.appendString("projects/", projectID, to: &claims)
        JSONBytes.appendRaw("],\"iat\":", to: &claims)
        JSONBytes.appendInteger(now, to: &claims)
        JSONBytes.appendRaw(",\"exp\":", to: &claims)
        JSONBytes.appendInteger(expiresAt, to: &claims)
        JSONBytes.appendRaw(",\"jti\":\"", to: &claims)
        claims.append(contentsOf: jtiBytes)
        JSONBytes.appendRaw("\"", to: &claims)
        if let riskMetric {
            JSONBytes.appendRaw(",\"risk_metric\":", to: &claims)
            JSONBytes.appendInteger(Int64(riskMetric), to: &claims)
        }
        JSONBytes.appendRaw("}", to: &claims)

        var token = [UInt8]()
        token.reserveCapacity(signer.encodedHeader.count + claims.count * 4 / 3 + 360)
        token.append(contentsOf: signer.encodedHeader)
        token.append(UInt8(ascii: "."))
        Base64.url.append(claims, to: &token)
        let signature: [UInt8]
        do {
            signature = try signer.privateKey.sign(token)
        } catch {
            throw TokenSigningError.signingFailed.with(detail: "\(error)")
        }
        token.append(UInt8(ascii: "."))
        Base64.url.append(signature, to: &token)
        let jti = String(decoding: jtiBytes, as: UTF8.self)
        return MintedAppCheckToken(
            token: String(decoding: token, as: UTF8.self), lifetime: lifetime, issuedAt: now, expiresAt: expiresAt, jti: jti)
    }
}
