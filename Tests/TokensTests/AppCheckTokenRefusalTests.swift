import Basics
import Crypto
import Testing
import Tokens

@Suite("App Check token refusals")
struct AppCheckTokenRefusalTests {
    let now: Int64 = 1_800_000_000
    let set = try! SigningKeySet(keys: [TestKeys.rsa, TestKeys.p256], signingWith: .es256)
    var verifier: AppCheckTokenVerifier { AppCheckTokenVerifier(keys: set) }
    var rsaKid: String { TestKeys.rsa.publicKey.jwk.kid }

    func header(alg: String = "RS256", typ: String? = "JWT", kid: String? = nil) -> String {
        var fields = ["\"alg\":\"\(alg)\""]
        if let typ { fields.append("\"typ\":\"\(typ)\"") }
        fields.append("\"kid\":\"\(kid ?? rsaKid)\"")
        return "{" + fields.joined(separator: ",") + "}"
    }

    func claims(
        iss: String = "https://firebaseappcheck.googleapis.com/42", aud: String = "[\"projects/42\",\"projects/p\"]",
        iat: Int64? = nil, exp: Int64? = nil
    ) -> String {
        "{\"iss\":\"\(iss)\",\"sub\":\"1:42:ios:a\",\"aud\":\(aud),\"iat\":\(iat ?? now),\"exp\":\(exp ?? now + 3_600),\"jti\":\"abc\"}"
    }

    func expect(_ error: AppCheckTokenError, _ token: String, project: String = "p", sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(throws: error, sourceLocation: sourceLocation) { try verifier.verify(token, project: project, now: now) }
    }

    @Test("accepts the hand-built baseline token, so every refusal below is for its one change")
    func baseline() throws {
        let token = try JWTBuilder.token(header: header(), claims: claims(), signer: TestKeys.rsa)
        #expect(try verifier.verify(token, project: "p", now: now).projectNumber == "42")
    }

    @Test("refuses a token whose claims were changed after signing")
    func badSignature() throws {
        let token = try JWTBuilder.token(header: header(), claims: claims(), signer: TestKeys.rsa)
        let forged = try JWTBuilder.token(header: header(), claims: claims(exp: now + 999_999), signer: TestKeys.rsa)
        let parts = token.split(separator: ".")
        let spliced = "\(parts[0]).\(forged.split(separator: ".")[1]).\(parts[2])"
        expect(.badSignature, spliced)
        let byOtherKey = try JWTBuilder.token(header: header(), claims: claims(), signer: TestKeys.rsaOther)
        expect(.badSignature, byOtherKey)
    }

    @Test("refuses an unknown or missing kid")
    func unknownKey() throws {
        let other = try JWTBuilder.token(header: header(kid: TestKeys.rsaOther.publicKey.jwk.kid), claims: claims(), signer: TestKeys.rsaOther)
        expect(.unknownKey, other)
        let noKid = try JWTBuilder.token(header: "{\"alg\":\"RS256\",\"typ\":\"JWT\"}", claims: claims(), signer: TestKeys.rsa)
        expect(.unknownKey, noKid)
    }

    @Test("refuses alg none, HS256, and an alg that is not the named key's")
    func algorithms() throws {
        expect(.unsupportedAlgorithm, try JWTBuilder.token(header: header(alg: "none"), claims: claims(), signer: nil))
        let hmac = HMACSHA256.authenticate(Array("x".utf8), key: Array(TestKeys.rsa.publicKey.pem().utf8))
        let hs256 = try JWTBuilder.token(header: header(alg: "HS256"), claims: claims(), signer: nil) + Base64.url.encode(hmac)
        expect(.unsupportedAlgorithm, hs256)
        let confused = try JWTBuilder.token(header: header(alg: "ES256"), claims: claims(), signer: TestKeys.p256)
        expect(.unsupportedAlgorithm, confused)
    }

    @Test("refuses a typ other than JWT")
    func wrongType() throws {
        expect(.wrongType, try JWTBuilder.token(header: header(typ: "at+jwt"), claims: claims(), signer: TestKeys.rsa))
        expect(.wrongType, try JWTBuilder.token(header: header(typ: nil), claims: claims(), signer: TestKeys.rsa))
    }

    @Test("refuses a token at and after its expiry")
    func expired() throws {
        expect(.expired, try JWTBuilder.token(header: header(), claims: claims(iat: now - 3_600, exp: now), signer: TestKeys.rsa))
    }

    @Test("refuses a token issued more than the clock skew in the future")
    func issuedInFuture() throws {
        expect(.issuedInFuture, try JWTBuilder.token(header: header(), claims: claims(iat: now + 61, exp: now + 4_000), signer: TestKeys.rsa))
        let slightly = try JWTBuilder.token(header: header(), claims: claims(iat: now + 60), signer: TestKeys.rsa)
        #expect(throws: Never.self) { try verifier.verify(slightly, project: "p", now: now) }
    }

    @Test("refuses a token whose audience is another project, or a string rather than an array")
    func wrongAudience() throws {
        let token = try JWTBuilder.token(header: header(), claims: claims(), signer: TestKeys.rsa)
        expect(.wrongAudience, token, project: "other")
        expect(.wrongAudience, try JWTBuilder.token(header: header(), claims: claims(aud: "\"projects/p\""), signer: TestKeys.rsa))
    }

    @Test("refuses an issuer outside our prefix or without a project")
    func wrongIssuer() throws {
        expect(.wrongIssuer, try JWTBuilder.token(header: header(), claims: claims(iss: "https://evil.example/42"), signer: TestKeys.rsa))
        expect(.wrongIssuer, try JWTBuilder.token(header: header(), claims: claims(iss: "https://firebaseappcheck.googleapis.com/"), signer: TestKeys.rsa))
        let token = try JWTBuilder.token(header: header(), claims: claims(), signer: TestKeys.rsa)
        let ours = AppCheckTokenVerifier(keys: set, issuerPrefix: "https://attestd.example/")
        #expect(throws: AppCheckTokenError.wrongIssuer) { try ours.verify(token, project: "p", now: self.now) }
    }

    @Test("refuses text that is not a JWS, and claims missing a field")
    func malformed() throws {
        expect(.malformed, "")
        expect(.malformed, "a.b")
        expect(.malformed, "a.b.c.d")
        expect(.malformed, "!!!.e30.e30")
        let missingJTI = "{\"iss\":\"https://firebaseappcheck.googleapis.com/42\",\"sub\":\"s\",\"aud\":[\"projects/p\"],\"iat\":\(now),\"exp\":\(now + 60)}"
        expect(.malformed, try JWTBuilder.token(header: header(), claims: missingJTI, signer: TestKeys.rsa))
        #expect(AppCheckTokenError.expired.reason == "tokenExpired")
    }
}
