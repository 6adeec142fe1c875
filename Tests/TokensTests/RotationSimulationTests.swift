import Crypto
import Foundation
import Testing
import Tokens

/// A verifier that behaves as the Firebase Admin SDKs for Node.js and Go do: it fetches the JWKS document, keeps
/// it 6 hours whatever it holds, and never fetches it again for a `kid` it does not know.
final class SixHourJWKSVerifier {
    static let cacheSeconds: Int64 = 21_600
    /// The JWKS document served at a time.
    private let fetch: (Int64) -> [UInt8]
    /// Every key of the simulation by `kid`: the test's way back from a JWK to a key (a JWK's `n`/`e` or `x`/`y`
    /// are checked against it, so the document must really carry the key).
    private let knownKeys: [String: PrivateKey]
    private var fetchedAt: Int64?
    private var verifier = AppCheckTokenVerifier(keys: [JWSPublicKey]())
    private(set) var fetches = 0

    init(fetch: @escaping (Int64) -> [UInt8], knownKeys: [PrivateKey]) {
        self.fetch = fetch
        self.knownKeys = Dictionary(uniqueKeysWithValues: knownKeys.map { ($0.publicKey.jwk.kid, $0) })
    }

    func verify(_ token: String, now: Int64) throws(AppCheckTokenError) -> VerifiedAppCheckToken {
        if fetchedAt.map({ now - $0 >= Self.cacheSeconds }) ?? true {
            fetchedAt = now
            fetches += 1
            verifier = AppCheckTokenVerifier(keys: Self.keys(in: fetch(now), known: knownKeys))
        }
        return try verifier.verify(token, project: RotationSimulationTests.project, now: now)
    }

    private static func keys(in document: [UInt8], known: [String: PrivateKey]) -> [JWSPublicKey] {
        guard let root = try? JSONSerialization.jsonObject(with: Data(document)) as? [String: Any],
              let keys = root["keys"] as? [[String: String]] else { return [] }
        return keys.compactMap { jwk in
            guard let kid = jwk["kid"], let key = known[kid]?.publicKey, jwk["n"] ?? jwk["x"] == key.jwk.n + key.jwk.x
            else { return nil }
            return key
        }
    }
}

/// Tokens minted every 5 minutes across rotations, checked by verifiers that cache the JWKS for 6 hours, one per
/// 15-minute phase of that cache: none is rejected when keys rotate by schedule, and many are when a key is
/// appended untimed.
@Suite("Signing key rotation against 6-hour JWKS caches")
struct RotationSimulationTests {
    static let project = "123456789012"
    static let step: Int64 = 300
    /// The caching verifiers start 15 minutes apart (the first fetches 5 minutes before each publishFrom).
    static let phaseSpacing: Int64 = 900
    static let lifetime = TokenLifetime(seconds: 3_600)!
    static let rules = SigningKeyRotationRules(jwksMaxAgeSeconds: 21_600, longestTokenLifetimeSeconds: 3_600, clockSkewSeconds: 60)
    static let start: Int64 = 1_800_000_000

    static let first = try! PrivateKey.generate(.rs256)
    static let second = try! PrivateKey.generate(.rs256)
    static let third = try! PrivateKey.generate(.rs256)

    struct Outcome {
        var tokens = 0
        var checks = 0
        var rejections: [(by: String, mintedAt: Int64, checkedAt: Int64, error: AppCheckTokenError)] = []
    }

    /// From `start` to `end`, every 5 minutes: mint a token with `keys(t)`, then have each caching verifier (one per
    /// 15-minute phase of its 6-hour cache) and attestd's own verifier check it and the token minted 55 minutes ago.
    func simulate(until end: Int64, keys: @escaping (Int64) -> SigningKeySet) throws -> Outcome {
        let phases = Int(SixHourJWKSVerifier.cacheSeconds / Self.phaseSpacing)
        let verifiers = (0..<phases).map { _ in
            SixHourJWKSVerifier(fetch: { keys($0).jwksJSON(at: $0) }, knownKeys: [Self.first, Self.second, Self.third])
        }
        var outcome = Outcome()
        var minted: [(at: Int64, token: String)] = []
        var time = Self.start
        while time <= end {
            let set = keys(time)
            let token = try AppCheckTokenIssuer(keys: set).mint(
                appID: "1:\(Self.project):ios:ab", projectNumber: Self.project, projectID: "p", lifetime: Self.lifetime, now: time)
            outcome.tokens += 1
            minted.append((time, token.token))
            let alive = minted.filter { time - $0.at == 0 || time - $0.at == 3_300 }
            let own = AppCheckTokenVerifier(keys: set)
            for (phase, verifier) in verifiers.enumerated() where time >= Self.start + Int64(phase) * Self.phaseSpacing {
                for token in alive {
                    outcome.checks += 1
                    do {
                        _ = try verifier.verify(token.token, now: time)
                    } catch {
                        outcome.rejections.append(("phase \(phase)", token.at, time, error))
                    }
                }
            }
            for token in alive {
                do {
                    _ = try own.verify(token.token, project: Self.project, now: time)
                } catch {
                    outcome.rejections.append(("attestd", token.at, time, error))
                }
            }
            minted.removeAll { time - $0.at >= 3_300 }
            time += Self.step
        }
        return outcome
    }

    @Test("two scheduled rotations in three and a half days reject no token at any verifier")
    func scheduledRotationRejectsNothing() throws {
        // Each key published 5 minutes after a fetch of the first verifier, and signing as early as allowed.
        let firstPublished = Self.start + 86_400 + 300
        let firstSwitch = firstPublished + Self.rules.minimumPublicationSeconds
        let secondPublished = Self.start + 2 * 86_400 + 300
        let secondSwitch = secondPublished + Self.rules.minimumPublicationSeconds
        let set = try SigningKeySet(keys: [
            .init(Self.first, name: "first.pem"),
            .init(Self.second, timing: SigningKeyTiming(publishFrom: firstPublished, signFrom: firstSwitch), name: "second.pem"),
            .init(Self.third, timing: SigningKeyTiming(publishFrom: secondPublished, signFrom: secondSwitch), name: "third.pem"),
        ], signingWith: .rs256, rules: Self.rules, checkedAt: Self.start)
        let end = secondSwitch + 30 * 3_600
        let outcome = try simulate(until: end) { _ in set }
        #expect(outcome.rejections.isEmpty, "\(outcome.rejections.count) rejected, first: \(outcome.rejections.prefix(3).map { "\($0)" })")
        #expect(outcome.tokens == Int((end - Self.start) / Self.step) + 1)
        #expect(outcome.checks > 40_000)
        // The rotations did happen: the first key has been withdrawn and the third signs.
        #expect(set.signer(at: end)?.name == "third.pem")
        #expect(set.entries[0].state(at: end) == .withdrawn && set.entries[1].state(at: end) == .withdrawn)
    }

    @Test("a key appended untimed signs at once, and verifiers holding the old JWKS reject its tokens for hours")
    func untimedAppendRejects() throws {
        let appendedAt = Self.start + 86_400
        let before = try SigningKeySet(keys: [Self.first], signingWith: .rs256)
        let after = try SigningKeySet(keys: [Self.first, Self.second], signingWith: .rs256)
        let outcome = try simulate(until: appendedAt + 7 * 3_600) { $0 < appendedAt ? before : after }
        #expect(!outcome.rejections.isEmpty)
        #expect(outcome.rejections.allSatisfy { $0.error == .unknownKey && $0.by != "attestd" })
        // Every caching verifier but the one refetching right at the switch rejects new tokens, for up to 6 hours.
        #expect(Set(outcome.rejections.map(\.by)).count == Int(SixHourJWKSVerifier.cacheSeconds / Self.phaseSpacing) - 1)
        #expect(outcome.rejections.allSatisfy { $0.mintedAt >= appendedAt && $0.checkedAt < appendedAt + SixHourJWKSVerifier.cacheSeconds })
        #expect(outcome.rejections.contains { $0.checkedAt >= appendedAt + SixHourJWKSVerifier.cacheSeconds - 2 * Self.phaseSpacing })
    }
}
