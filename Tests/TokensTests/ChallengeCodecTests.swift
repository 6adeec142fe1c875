import Crypto
import Testing
import Tokens

@Suite("Stateless challenges")
struct ChallengeCodecTests {
    let key = ChallengeKey(id: 1, secret: Array(repeating: 7, count: 32))!
    let app = "1:123456789012:ios:0123456789abcdef"
    var codec: ChallengeCodec { ChallengeCodec(keys: [key], ttlSeconds: 300) }

    @Test("opens a challenge it issued, for the same app, before it expires")
    func roundTrip() throws {
        let challenge = codec.issue(appID: app, now: 1_000)
        #expect(challenge.count == ChallengeCodec.byteCount)
        let opened = try codec.open(challenge, appID: app, now: 1_299)
        #expect(opened.expiresAt == 1_300)
        #expect(opened.nonce.count == 32)
    }

    @Test("issues a different challenge every time")
    func unique() {
        #expect(codec.issue(appID: app, now: 0) != codec.issue(appID: app, now: 0))
    }

    @Test("refuses a challenge at and after its expiry")
    func expired() {
        let challenge = codec.issue(appID: app, now: 1_000)
        #expect(throws: ChallengeError.expired) { try codec.open(challenge, appID: app, now: 1_300) }
    }

    @Test("refuses a challenge issued for another app")
    func otherApp() {
        let challenge = codec.issue(appID: app, now: 1_000)
        #expect(throws: ChallengeError.forged) { try codec.open(challenge, appID: "1:123456789012:ios:ffff", now: 1_001) }
    }

    @Test("refuses a challenge with any byte changed", arguments: [2, 9, 10, 41, 73])
    func tampered(index: Int) {
        var challenge = codec.issue(appID: app, now: 1_000)
        challenge[index] ^= 0x01
        #expect(throws: ChallengeError.forged) { try codec.open(challenge, appID: app, now: 1_001) }
    }

    @Test("refuses truncated, padded and wrong-version challenges as malformed")
    func malformed() {
        let challenge = codec.issue(appID: app, now: 1_000)
        #expect(throws: ChallengeError.malformed) { try codec.open(Array(challenge.dropLast()), appID: app, now: 1_001) }
        #expect(throws: ChallengeError.malformed) { try codec.open(challenge + [0], appID: app, now: 1_001) }
        var wrongVersion = challenge
        wrongVersion[0] = 2
        #expect(throws: ChallengeError.malformed) { try codec.open(wrongVersion, appID: app, now: 1_001) }
    }

    @Test("opens challenges of a rotated-out key it still holds and refuses keys it does not")
    func rotation() throws {
        let newKey = ChallengeKey(id: 2, secret: Array(repeating: 9, count: 32))!
        let old = codec.issue(appID: app, now: 1_000)
        let rotated = ChallengeCodec(keys: [key, newKey])
        _ = try rotated.open(old, appID: app, now: 1_001)
        let fresh = rotated.issue(appID: app, now: 1_000)
        #expect(fresh[1] == 2)
        #expect(throws: ChallengeError.unknownKey) { try codec.open(fresh, appID: app, now: 1_001) }
    }

    @Test("refuses secrets shorter than 256 bits")
    func shortSecret() {
        #expect(ChallengeKey(id: 1, secret: Array(repeating: 1, count: 31)) == nil)
    }
}
