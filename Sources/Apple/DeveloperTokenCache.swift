import Basics
import Crypto
import Synchronization
import Tokens

/// The developer JWT (ES256; `kid`, `iss` = team, `iat`), signed once and reused: Apple refuses tokens older than
/// an hour and asks that they not be regenerated more often than every 20 minutes, so one is renewed after
/// ``renewalAge``, well inside the hour.
final class DeveloperTokenCache: Sendable {
    private let credentials: DeveloperCredentials
    private let clock: TimeSource
    private let cached = Mutex<(token: String, issuedAt: Int64)?>(nil)
    /// 30 minutes: between Apple's 20-minute floor and its one-hour limit, with room for clock skew.
    static let renewalAge: Int64 = 30 * 60

    init(credentials: DeveloperCredentials, clock: TimeSource) {
        self.credentials = credentials
        self.clock = clock
    }

    func token() throws(AppleError) -> String {
        let time = clock.unixSeconds()
        if let cached = cached.withLock({ $0 }), time - cached.issuedAt < Self.renewalAge, time >= cached.issuedAt {
            return cached.token
        }
        let header = "{\"alg\":\"ES256\",\"kid\":\"\(credentials.keyID)\"}"
        let claims = "{\"iss\":\"\(credentials.teamID)\",\"iat\":\(time)}"
        let token: String
        do {
            token = try JWS.sign(header: header, claims: claims, with: credentials.privateKey)
        } catch {
            throw AppleError(.authorizationRejected, "cannot sign the developer JWT: \(error)")
        }
        cached.withLock { $0 = (token, time) }
        return token
    }
}
