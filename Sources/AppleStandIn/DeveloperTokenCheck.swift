import Basics
import Crypto
import Foundation

/// Checks the developer JWT the way Apple does: ES256 by a known key (`kid`), `iss` its team, `iat` at most an
/// hour old and not from the future.
struct DeveloperTokenCheck: Sendable {
    enum Outcome: Equatable {
        /// The token is good; the bits are scoped to this team.
        case accepted(teamID: String)
        /// Missing or not a JWT at all: Apple's 400 `Missing or badly formatted authorization token`.
        case malformed
        /// A JWT that fails verification: Apple's 401 `Unable to verify authorization token`.
        case unverified
    }

    let keys: [DeveloperKey]
    /// Apple refuses tokens older than an hour (the APNs rule it refers to).
    static let maximumAge: Int64 = 3600
    /// Some slack for a client clock slightly ahead.
    static let allowedFutureSkew: Int64 = 60

    func check(_ token: String?, now: Int64) -> Outcome {
        guard let token, !token.isEmpty else { return .malformed }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let headerBytes = Base64.url.decode(parts[0]), let claimBytes = Base64.url.decode(parts[1]),
              let signature = Base64.url.decode(parts[2]),
              let header = try? JSONSerialization.jsonObject(with: Data(headerBytes)) as? [String: Any],
              let claims = try? JSONSerialization.jsonObject(with: Data(claimBytes)) as? [String: Any]
        else { return .malformed }
        guard header["alg"] as? String == "ES256", let keyID = header["kid"] as? String,
              let issuer = claims["iss"] as? String, let issuedAt = (claims["iat"] as? NSNumber)?.int64Value,
              let key = keys.first(where: { $0.keyID == keyID && $0.teamID == issuer })
        else { return .unverified }
        guard issuedAt <= now + Self.allowedFutureSkew, now - issuedAt <= Self.maximumAge else { return .unverified }
        let signingInput = Array(token.utf8[..<parts[1].endIndex])
        guard key.publicKey.algorithm == .es256, key.publicKey.isValidSignature(signature, for: signingInput)
        else { return .unverified }
        return .accepted(teamID: issuer)
    }
}
