import Basics
import Crypto
import Foundation
import Testing
import Tokens

@Suite("App Check tokens")
struct AppCheckTokenTests {
    let app = "1:123456789012:ios:0123456789abcdef"
    let number = "123456789012"
    let projectID = "my-project"
    let now: Int64 = 1_800_000_000

    func mint(_ set: SigningKeySet, lifetime: TokenLifetime = .default, at time: Int64? = nil) throws -> MintedAppCheckToken {
        try AppCheckTokenIssuer(keys: set).mint(
            appID: app, projectNumber: number, projectID: projectID, lifetime: lifetime, now: time ?? now)
    }

    @Test("mints RS256 and ES256 tokens in Firebase's format that verify with our verifier", arguments: [SigningAlgorithm.rs256, .es256])
    func roundTrip(algorithm: SigningAlgorithm) throws {
        let key = algorithm == .rs256 ? TestKeys.rsa : TestKeys.p256
        let set = try SigningKeySet(keys: [key], signingWith: algorithm)
        let minted = try mint(set)
        #expect(minted.lifetime == .default)
        #expect(minted.expiresAt - minted.issuedAt == 3_600)

        let header = try JWTBuilder.segment(minted.token, 0)
        #expect(header.count == 3)
        #expect(header["alg"] as? String == algorithm.jwsName)
        #expect(header["typ"] as? String == "JWT")
        #expect(header["kid"] as? String == key.publicKey.jwk.kid)
        let claims = try JWTBuilder.segment(minted.token, 1)
        #expect(claims["iss"] as? String == "https://firebaseappcheck.googleapis.com/123456789012")
        #expect(claims["sub"] as? String == app)
        #expect(claims["aud"] as? [String] == ["projects/123456789012", "projects/my-project"])
        #expect(claims["iat"] as? Int == Int(now))
        #expect(claims["exp"] as? Int == Int(now + 3_600))
        let jti = try #require(claims["jti"] as? String)
        #expect(jti == minted.jti && (Base64.url.decode(jti)?.count ?? 0) >= 16)

        for project in [number, projectID, "projects/\(number)", "projects/\(projectID)"] {
            let verified = try AppCheckTokenVerifier(keys: set).verify(minted.token, project: project, now: now + 10)
            #expect(verified == VerifiedAppCheckToken(
                appID: app, projectNumber: number, audience: ["projects/\(number)", "projects/\(projectID)"], jti: jti,
                kid: key.publicKey.jwk.kid, issuedAt: now, expiresAt: now + 3_600))
        }
    }

    @Test("makes signatures the openssl tool verifies over the JWS signing input", arguments: [SigningAlgorithm.rs256, .es256])
    func independentlyVerifiable(algorithm: SigningAlgorithm) throws {
        let key = algorithm == .rs256 ? TestKeys.rsa : TestKeys.p256
        let token = try mint(SigningKeySet(keys: [key], signingWith: algorithm)).token
        let parts = token.split(separator: ".")
        let signature = try #require(Base64.url.decode(parts[2]))
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write("public.pem", Array(key.publicKey.pem().utf8))
        try scratch.write("input", Array("\(parts[0]).\(parts[1])".utf8))
        try scratch.write("signature", algorithm == .es256 ? derSignature(fromRaw: signature) : signature)
        let (status, output) = try OpenSSLTool.run([
            "dgst", "-sha256", "-verify", scratch.file("public.pem"), "-signature", scratch.file("signature"), scratch.file("input"),
        ])
        #expect(status == 0 && output.contains("Verified OK"), "\(output)")
    }

    @Test("escapes app and project names in the claims")
    func escapesClaims() throws {
        let set = try SigningKeySet(keys: [TestKeys.p256], signingWith: .es256)
        let odd = "app\"with\\quote\n"
        let minted = try AppCheckTokenIssuer(keys: set).mint(appID: odd, projectNumber: "1", projectID: "p\"q", lifetime: .default, now: now)
        let claims = try JWTBuilder.segment(minted.token, 1)
        #expect(claims["sub"] as? String == odd)
        #expect(claims["aud"] as? [String] == ["projects/1", "projects/p\"q"])
        #expect(try AppCheckTokenVerifier(keys: set).verify(minted.token, project: "p\"q", now: now).appID == odd)
    }

    @Test("gives every token a different jti")
    func uniqueIDs() throws {
        let set = try SigningKeySet(keys: [TestKeys.p256], signingWith: .es256)
        let ids = try (0..<20).map { _ in try mint(set).jti }
        #expect(Set(ids).count == 20)
    }

    @Test("mints from many tasks at once with one issuer, every token distinct and valid")
    func concurrentMinting() async throws {
        let issuer = AppCheckTokenIssuer(keys: try SigningKeySet(keys: [TestKeys.p256], signingWith: .es256))
        let verifier = AppCheckTokenVerifier(keys: issuer.keys)
        let (app, number, projectID, now) = (app, number, projectID, now)
        let tokens = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<64 {
                group.addTask {
                    try? issuer.mint(appID: app, projectNumber: number, projectID: projectID, lifetime: .default, now: now).token
                }
            }
            return await group.reduce(into: [String]()) { if let token = $1 { $0.append(token) } }
        }
        #expect(tokens.count == 64 && Set(tokens).count == 64)
        for token in tokens { #expect(try verifier.verify(token, project: number, now: now).appID == app) }
    }

    @Test("keeps verifying a token signed by an old key while that key is in the set")
    func rotation() throws {
        let old = try SigningKeySet(keys: [TestKeys.rsaOther], signingWith: .rs256)
        let oldToken = try mint(old).token
        let rotated = try SigningKeySet(keys: [TestKeys.rsaOther, TestKeys.rsa], signingWith: .rs256)
        let newToken = try mint(rotated)
        #expect(try JWTBuilder.segment(newToken.token, 0)["kid"] as? String == TestKeys.rsa.publicKey.jwk.kid)
        let verifier = AppCheckTokenVerifier(keys: rotated)
        #expect(try verifier.verify(oldToken, project: number, now: now).kid == TestKeys.rsaOther.publicKey.jwk.kid)
        #expect(try verifier.verify(newToken.token, project: number, now: now).kid == TestKeys.rsa.publicKey.jwk.kid)
        let retired = AppCheckTokenVerifier(keys: try SigningKeySet(keys: [TestKeys.rsa], signingWith: .rs256))
        #expect(throws: AppCheckTokenError.unknownKey) { try retired.verify(oldToken, project: self.number, now: self.now) }
    }

    @Test("lives the given lifetime, and 5 minutes when limited-use")
    func lifetimes() throws {
        let set = try SigningKeySet(keys: [TestKeys.p256], signingWith: .es256)
        #expect(try mint(set, lifetime: .limitedUse).expiresAt == now + 300)
        let week = try #require(TokenLifetime(seconds: 604_800))
        #expect(try mint(set, lifetime: week).expiresAt == now + 604_800)
    }

    @Test("validates lifetimes: 30 minutes to 7 days, Duration strings")
    func lifetimeValidation() {
        #expect(TokenLifetime(seconds: 1_799) == nil)
        #expect(TokenLifetime(seconds: 1_800)?.seconds == 1_800)
        #expect(TokenLifetime(seconds: 604_800)?.seconds == 604_800)
        #expect(TokenLifetime(seconds: 604_801) == nil)
        #expect(TokenLifetime(duration: "3600s")?.seconds == 3_600)
        #expect(TokenLifetime(duration: "1800.5s")?.seconds == 1_800)
        #expect(TokenLifetime(duration: "3600") == nil)
        #expect(TokenLifetime(duration: "-3600s") == nil)
        #expect(TokenLifetime(duration: "60s") == nil)
        #expect(TokenLifetime(duration: "1e4s") == nil)
        #expect(TokenLifetime(duration: "3600.s") == nil)
        #expect(TokenLifetime.default.description == "3600s")
    }
}
