@testable import AppCheckService
import Basics
import Config
import Crypto
import Testing
import Tokens

@Suite("Signing key rotation in the service")
struct SigningKeyRotationServiceTests {
    static let publishFrom: Int64 = 1_800_000_000
    static let rules = SigningKeyRotationRules(jwksMaxAgeSeconds: 21_600, longestTokenLifetimeSeconds: 3_600, clockSkewSeconds: 60)

    @Test("the JWKS answers, at each time around every boundary, exactly the keys published then")
    func jwksFollowsTheSchedule() throws {
        let signFrom = Self.publishFrom + Self.rules.minimumPublicationSeconds
        let set = try SigningKeySet(keys: [
            .init(PrivateKey.generate(.rs256), name: "old.pem"),
            .init(PrivateKey.generate(.rs256), timing: SigningKeyTiming(publishFrom: Self.publishFrom, signFrom: signFrom), name: "new.pem"),
            .init(PrivateKey.generate(.es256), timing: SigningKeyTiming(publishFrom: signFrom + 60, signFrom: signFrom + 86_400), name: "ec.pem"),
        ], signingWith: .rs256, rules: Self.rules, checkedAt: 0)
        let handler = JWKSHandler(keys: set, clock: .system)
        #expect(set.boundaries.count == 4)
        var seen = Set<[String]>()
        let times: [Int64] = set.boundaries.flatMap { boundary -> [Int64] in [boundary - 1, boundary, boundary + 1] } + [.min, 0, .max - 1]
        for time in times {
            let served = handler.keySet(at: time).keys.map(\.kid)
            #expect(served == set.jwks(at: time).map(\.kid), "at \(time)")
            seen.insert(served)
        }
        // The old key alone; with the next one (as it is when the new one signs); with the P-256 key; without the old key.
        #expect(seen.count == 4)
    }

    func configuration(ttls: [Int], serviceAccounts: Bool = false) throws -> Configuration {
        let apps = ttls.enumerated().map { index, ttl in
            #"{"appId":"1:123456789012:ios:a\#(index)","teamId":"DEVTEAM123","bundleIds":["a.b"],"environment":"production","tokenTtlSeconds":\#(ttl)}"#
        }
        let accounts = serviceAccounts ? #","serviceAccounts":[{"email":"a@b.c","publicKey":"sa.pem"}]"# : ""
        let text = """
            {"listeners":[{"address":"127.0.0.1","port":8080}],
             "keys":{"challengeKey":"c.json","artifactKey":"a.json","tokenSigning":["t.pem"]},
             "projects":[{"number":"123456789012","id":"p","apps":[\(apps.joined(separator: ","))]\(accounts)}]}
            """
        return try Configuration.parse(json: Array(text.utf8), baseDirectory: "/etc/attestd")
    }

    @Test("keeps a retired key for the longest token lifetime of the configuration plus twice the clock skew")
    func rulesFromConfiguration() throws {
        let plain = SigningKeyRotationRules(try configuration(ttls: [3_600, 7_200]))
        #expect(plain.retentionSeconds == 7_200 + 120)
        #expect(plain.minimumPublicationSeconds == JWKSHandler.maxAgeSeconds + 120)
        // A custom token's ttl may ask for up to 7 days, whatever the app's own lifetime.
        let custom = SigningKeyRotationRules(try configuration(ttls: [1_800], serviceAccounts: true))
        #expect(custom.retentionSeconds == 604_800 + 120)
    }
}
