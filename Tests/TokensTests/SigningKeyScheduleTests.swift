import Basics
import Crypto
import Testing
import Tokens

/// A schedule of signing keys: the state of each key at times before, at and after each of its boundaries, and
/// every refusal.
@Suite("Signing key schedule")
struct SigningKeyScheduleTests {
    static let lead: Int64 = 21_600 + 120
    static let retention: Int64 = 3_600 + 120
    static let rules = SigningKeyRotationRules(minimumPublicationSeconds: lead, retentionSeconds: retention)
    /// 2027-01-15T08:00:00Z
    static let publishFrom: Int64 = 1_800_000_000
    static let signFrom = publishFrom + lead

    static let old = try! PrivateKey.generate(.rs256)
    static let new = try! PrivateKey.generate(.rs256)
    static let third = try! PrivateKey.generate(.rs256)
    static let ecUntimed = try! PrivateKey.generate(.es256)
    static let ecTimed = try! PrivateKey.generate(.es256)

    /// old (untimed) → new (timed), with an untimed and a timed P-256 key beside them.
    static func rotation() throws -> SigningKeySet {
        try SigningKeySet(keys: [
            .init(old, name: "old.pem"),
            .init(ecUntimed, name: "ec.pem"),
            .init(new, timing: SigningKeyTiming(publishFrom: publishFrom, signFrom: signFrom), name: "new.pem"),
            .init(ecTimed, timing: SigningKeyTiming(publishFrom: publishFrom + 600, signFrom: publishFrom + 600 + lead), name: "ec-timed.pem"),
        ], signingWith: .rs256, rules: rules, checkedAt: publishFrom - 1)
    }

    func states(_ set: SigningKeySet, at time: Int64) -> [SigningKeyState] { set.entries.map { $0.state(at: time) } }
    func published(_ set: SigningKeySet, at time: Int64) -> [String] { set.jwks(at: time).map(\.kid) }

    @Test("moves each key through next, current, retired and withdrawn at the configured times")
    func statesAroundEachBoundary() throws {
        let set = try Self.rotation()
        let (p, s, r) = (Self.publishFrom, Self.signFrom, Self.signFrom + Self.retention)
        let kids = set.entries.map(\.kid)
        // The P-256 key's signFrom is no boundary: under RS256 it never signs.
        #expect(set.boundaries == [p, p + 600, s, r])

        #expect(states(set, at: p - 1) == [.current, .publishedOnly, .unpublished, .unpublished])
        #expect(published(set, at: p - 1) == [kids[0], kids[1]])
        #expect(set.signer(at: p - 1)?.kid == kids[0])

        #expect(states(set, at: p) == [.current, .publishedOnly, .next, .unpublished])
        #expect(published(set, at: p) == [kids[0], kids[1], kids[2]])
        #expect(set.signer(at: p)?.kid == kids[0])
        #expect(states(set, at: p + 600) == [.current, .publishedOnly, .next, .publishedOnly])

        #expect(states(set, at: s - 1) == [.current, .publishedOnly, .next, .publishedOnly])
        #expect(set.signer(at: s - 1)?.kid == kids[0])
        #expect(states(set, at: s) == [.retired, .publishedOnly, .current, .publishedOnly])
        #expect(set.signer(at: s)?.kid == kids[2])
        #expect(published(set, at: s) == kids)

        #expect(states(set, at: r - 1) == [.retired, .publishedOnly, .current, .publishedOnly])
        #expect(states(set, at: r) == [.withdrawn, .publishedOnly, .current, .publishedOnly])
        #expect(published(set, at: r) == [kids[1], kids[2], kids[3]])
        #expect(set.signer(at: r + 86_400 * 365)?.kid == kids[2])
        #expect(set.nextBoundary(after: s) == r)
        #expect(set.nextBoundary(after: r) == nil)
    }

    @Test("never lets a P-256 key sign in an RS256 schedule, timed or not, whatever the time")
    func otherAlgorithmNeverSigns() throws {
        let set = try Self.rotation()
        for time in [Int64.min, 0, Self.publishFrom, Self.signFrom, Self.publishFrom + 600 + Self.lead, Int64.max - 1] {
            #expect(set.signer(at: time)?.privateKey.algorithm != .es256)
        }
        #expect(set.entries[1].signing == nil && set.entries[3].signing == nil)
        #expect(set.entries[3].timeline.map(\.state) == [.unpublished, .publishedOnly])
    }

    @Test("accepts a key's tokens exactly while it is published: from publishFrom, until its retention has passed")
    func verifierFollowsPublication() throws {
        let set = try Self.rotation()
        let issuer = AppCheckTokenIssuer(keys: set)
        let verifier = AppCheckTokenVerifier(keys: set)
        let lifetime = try #require(TokenLifetime(seconds: 3_600))
        func mint(at time: Int64) throws -> MintedAppCheckToken {
            try issuer.mint(appID: "1:1:ios:a", projectNumber: "1", projectID: "p", lifetime: lifetime, now: time)
        }
        // The last token of the old key lives until its retention is nearly over, and verifies all along.
        let last = try mint(at: Self.signFrom - 1)
        #expect(try verifier.verify(last.token, project: "1", now: last.expiresAt - 1).kid == Self.old.publicKey.jwk.kid)
        let first = try mint(at: Self.signFrom)
        #expect(try verifier.verify(first.token, project: "1", now: Self.signFrom).kid == Self.new.publicKey.jwk.kid)

        // A token of the new key is refused before its publishFrom (only reachable with a clock gone back), and one
        // of the old key once withdrawn (made here with a set that still has it current).
        let early = try AppCheckTokenIssuer(keys: SigningKeySet(keys: [Self.new], signingWith: .rs256)).mint(
            appID: "1:1:ios:a", projectNumber: "1", projectID: "p", lifetime: lifetime, now: Self.publishFrom - 10)
        #expect(throws: AppCheckTokenError.unknownKey) { try verifier.verify(early.token, project: "1", now: Self.publishFrom - 1) }
        #expect(try verifier.verify(early.token, project: "1", now: Self.publishFrom).kid == Self.new.publicKey.jwk.kid)
        let withdrawnAt = Self.signFrom + Self.retention
        let late = try AppCheckTokenIssuer(keys: SigningKeySet(keys: [Self.old], signingWith: .rs256)).mint(
            appID: "1:1:ios:a", projectNumber: "1", projectID: "p", lifetime: lifetime, now: withdrawnAt - 10)
        #expect(try verifier.verify(late.token, project: "1", now: withdrawnAt - 1).kid == Self.old.publicKey.jwk.kid)
        #expect(throws: AppCheckTokenError.unknownKey) { try verifier.verify(late.token, project: "1", now: withdrawnAt) }
    }

    @Test("refuses to mint when the clock is before every signFrom")
    func noSignerBeforeTheSchedule() throws {
        let set = try SigningKeySet(keys: [
            .init(Self.new, timing: SigningKeyTiming(publishFrom: Self.publishFrom, signFrom: Self.signFrom), name: "new.pem"),
        ], signingWith: .rs256, rules: Self.rules, checkedAt: Self.signFrom)
        #expect(set.signer(at: Self.signFrom - 1) == nil)
        #expect(throws: TokenSigningError.noSigningKey) {
            try AppCheckTokenIssuer(keys: set).mint(
                appID: "1:1:ios:a", projectNumber: "1", projectID: "p", lifetime: .default, now: Self.signFrom - 1)
        }
    }

    @Test("chains rotations: each key retires when the next signs, and is withdrawn one retention later")
    func chainOfRotations() throws {
        let second = Self.signFrom + 2 * 86_400
        let set = try SigningKeySet(keys: [
            .init(Self.old, name: "a.pem"),
            .init(Self.third, timing: SigningKeyTiming(publishFrom: second - Self.lead, signFrom: second), name: "c.pem"),
            .init(Self.new, timing: SigningKeyTiming(publishFrom: Self.publishFrom, signFrom: Self.signFrom), name: "b.pem"),
        ], signingWith: .rs256, rules: Self.rules, checkedAt: 0)
        #expect(set.entries[0].timeline.map(\.state) == [.current, .retired, .withdrawn])
        #expect(set.entries[0].published.upperBound == Self.signFrom + Self.retention)
        #expect(set.entries[2].timeline.map { $0.state } == [.unpublished, .next, .current, .retired, .withdrawn])
        #expect(set.entries[2].timeline.map(\.from) == [.min, Self.publishFrom, Self.signFrom, second, second + Self.retention])
        #expect(set.signer(at: second - 1)?.name == "b.pem")
        #expect(set.signer(at: second)?.name == "c.pem")
        #expect(set.entries[2].transitions(after: second) == "withdrawn from \(RFC3339.format(unixSeconds: second + Self.retention))")
    }

    @Test("keeps untimed keys published as before: the last one signs, the others stay until a timed key has taken over")
    func untimedKeysAsBefore() throws {
        let untimed = try SigningKeySet(keys: [Self.old, Self.third], signingWith: .rs256)
        #expect(untimed.signer(at: 0)?.kid == Self.third.publicKey.jwk.kid)
        #expect(untimed.entries.map { $0.state(at: 0) } == [.retired, .current])
        #expect(untimed.jwks(at: Int64.max - 1).count == 2)
        #expect(untimed.boundaries.isEmpty)

        let then = try SigningKeySet(keys: [
            .init(Self.old, name: "a.pem"), .init(Self.third, name: "b.pem"),
            .init(Self.new, timing: SigningKeyTiming(publishFrom: Self.publishFrom, signFrom: Self.signFrom), name: "c.pem"),
        ], signingWith: .rs256, rules: Self.rules, checkedAt: 0)
        #expect(then.entries[0].timeline.map(\.state) == [.retired, .withdrawn])
        #expect(then.entries[0].published.upperBound == Self.signFrom + Self.retention)
        #expect(then.entries[1].timeline.map(\.state) == [.current, .retired, .withdrawn])
    }

    @Test("refuses a timed key published for less than the minimum before it signs, naming its file")
    func refusesShortPublication() throws {
        func set(lead: Int64) throws -> SigningKeySet {
            try SigningKeySet(keys: [
                .init(Self.old, name: "old.pem"),
                .init(Self.new, timing: SigningKeyTiming(publishFrom: Self.publishFrom, signFrom: Self.publishFrom + lead), name: "keys/new.pem"),
            ], signingWith: .rs256, rules: Self.rules, checkedAt: 0)
        }
        #expect(try set(lead: Self.lead).entries.count == 2)
        let error = #expect(throws: SigningKeySetError.publishedTooBriefly) { try set(lead: Self.lead - 1) }
        #expect(error?.detail.hasPrefix("keys/new.pem: signFrom 2027-01-15T14:01:59Z is 6h 1m 59s after publishFrom 2027-01-15T08:00:00Z; it must be at least 6h 2m after it") == true, "\(String(describing: error))")
        #expect(throws: SigningKeySetError.publishedTooBriefly) { try set(lead: -3_600) }
    }

    @Test("refuses a timed P-256 key published too briefly too, though it does not sign under RS256")
    func refusesShortPublicationOfOtherAlgorithm() {
        #expect(throws: SigningKeySetError.publishedTooBriefly) {
            try SigningKeySet(keys: [
                .init(Self.old, name: "old.pem"),
                .init(Self.ecTimed, timing: SigningKeyTiming(publishFrom: Self.publishFrom, signFrom: Self.publishFrom + 60), name: "ec.pem"),
            ], signingWith: .rs256, rules: Self.rules, checkedAt: 0)
        }
    }

    @Test("refuses two timed keys of the tokens' algorithm starting to sign at the same time, naming both")
    func refusesSameSignFrom() {
        let timing = SigningKeyTiming(publishFrom: Self.publishFrom, signFrom: Self.signFrom)
        let error = #expect(throws: SigningKeySetError.sameSignFrom) {
            try SigningKeySet(keys: [
                .init(Self.old, name: "a.pem"), .init(Self.new, timing: timing, name: "b.pem"),
                .init(Self.third, timing: timing, name: "c.pem"),
            ], signingWith: .rs256, rules: Self.rules, checkedAt: 0)
        }
        #expect(error?.detail.hasPrefix("b.pem and c.pem both start signing at 2027-01-15T14:02:00Z") == true)
    }

    @Test("refuses a schedule in which no key signs yet at the time of the check, and takes it from signFrom on")
    func refusesNothingSigningNow() throws {
        func set(checkedAt now: Int64) throws -> SigningKeySet {
            try SigningKeySet(keys: [
                .init(Self.new, timing: SigningKeyTiming(publishFrom: Self.publishFrom, signFrom: Self.signFrom), name: "first.pem"),
                .init(Self.ecUntimed, name: "ec.pem"),
            ], signingWith: .rs256, rules: Self.rules, checkedAt: now)
        }
        let error = #expect(throws: SigningKeySetError.nothingSigns) { try set(checkedAt: Self.signFrom - 1) }
        #expect(error?.detail.contains("no RS256 key signs yet (the earliest signFrom is 2027-01-15T14:02:00Z)") == true)
        #expect(try set(checkedAt: Self.signFrom).signer(at: Self.signFrom)?.name == "first.pem")
    }

    @Test("refuses the same key listed twice, naming both files")
    func refusesDuplicates() throws {
        let copy = try PrivateKey(pem: Self.old.pem())
        let error = #expect(throws: SigningKeySetError.duplicateKey) {
            try SigningKeySet(keys: [
                .init(Self.old, name: "a.pem"),
                .init(copy, timing: SigningKeyTiming(publishFrom: Self.publishFrom, signFrom: Self.signFrom), name: "b.pem"),
            ], signingWith: .rs256, rules: Self.rules, checkedAt: 0)
        }
        #expect(error?.detail.hasPrefix("a.pem and b.pem hold the same key") == true)
    }

    @Test("asks for the JWKS max-age or 6 hours, whichever is longer, plus twice the clock skew; keeps keys one token lifetime plus that")
    func rulesFromSettings() {
        let sixHours = SigningKeyRotationRules(jwksMaxAgeSeconds: 3_600, longestTokenLifetimeSeconds: 3_600, clockSkewSeconds: 60)
        #expect(sixHours.minimumPublicationSeconds == 21_600 + 120)
        #expect(sixHours.retentionSeconds == 3_600 + 120)
        let day = SigningKeyRotationRules(jwksMaxAgeSeconds: 86_400, longestTokenLifetimeSeconds: 604_800, clockSkewSeconds: 0)
        #expect(day.minimumPublicationSeconds == 86_400 && day.retentionSeconds == 604_800)
    }
}
