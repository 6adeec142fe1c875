@testable import Apple
import Basics
import Crypto
import Foundation
import Synchronization
import Testing

@Suite("Developer JWT for Apple")
struct DeveloperTokenCacheTests {
    final class Clock: Sendable {
        let seconds = Atomic<Int64>(1_800_000_000)
    }

    @Test("is ES256 with kid, iss = team and iat, reused for 30 minutes and renewed after")
    func reuseAndRenewal() throws {
        let key = try PrivateKey.generate(.es256)
        let clock = Clock()
        let cache = DeveloperTokenCache(
            credentials: DeveloperCredentials(teamID: "TEAM123456", keyID: "KEY1234567", privateKey: key),
            clock: TimeSource(unixSeconds: { clock.seconds.load(ordering: .relaxed) }))
        let first = try cache.token()
        let parts = first.split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        let header = String(decoding: try #require(Base64.url.decode(parts[0])), as: UTF8.self)
        let claims = String(decoding: try #require(Base64.url.decode(parts[1])), as: UTF8.self)
        #expect(header == #"{"alg":"ES256","kid":"KEY1234567"}"#)
        #expect(claims == #"{"iss":"TEAM123456","iat":1800000000}"#)
        #expect(key.publicKey.isValidSignature(try #require(Base64.url.decode(parts[2])), for: Array("\(parts[0]).\(parts[1])".utf8)))

        clock.seconds.add(29 * 60, ordering: .relaxed)
        #expect(try cache.token() == first)
        clock.seconds.add(2 * 60, ordering: .relaxed)
        let renewed = try cache.token()
        #expect(renewed != first)
        let renewedClaims = String(decoding: try #require(Base64.url.decode(renewed.split(separator: ".")[1])), as: UTF8.self)
        #expect(renewedClaims == #"{"iss":"TEAM123456","iat":1800001860}"#)
    }
}
