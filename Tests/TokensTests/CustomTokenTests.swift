import Crypto
import Testing
import Tokens

@Suite("Custom tokens")
struct CustomTokenTests {
    let now: Int64 = 1_800_000_000
    let email = "firebase-adminsdk-x@my-project.iam.gserviceaccount.com"
    let app = "1:42:ios:abc"
    var verifier: CustomTokenVerifier {
        CustomTokenVerifier(serviceAccounts: [ServiceAccountKey(email: email, publicKey: TestKeys.rsa.publicKey)])
    }

    /// A token shaped like the Admin SDKs' `createToken`, with one field changed by the caller.
    func token(
        iss: String? = nil, sub: String? = nil, aud: String = CustomTokenVerifier.audience, appID: String? = nil,
        iat: Int64? = nil, exp: Int64? = nil, ttl: String? = nil, alg: String = "RS256", signer: PrivateKey = TestKeys.rsa
    ) throws -> String {
        let iat = iat ?? now
        var claims = "{\"iss\":\"\(iss ?? email)\",\"sub\":\"\(sub ?? email)\",\"aud\":\"\(aud)\",\"app_id\":\"\(appID ?? app)\",\"iat\":\(iat),\"exp\":\(exp ?? iat + 300)"
        if let ttl { claims += ",\"ttl\":\"\(ttl)\"" }
        claims += "}"
        return try JWTBuilder.token(header: "{\"alg\":\"\(alg)\",\"typ\":\"JWT\"}", claims: claims, signer: signer)
    }

    func expect(_ error: CustomTokenError, _ token: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(throws: error, sourceLocation: sourceLocation) { try verifier.verify(token, appID: app, now: now + 1) }
    }

    @Test("accepts a token as the Admin SDKs make it, with and without a ttl")
    func valid() throws {
        let verified = try verifier.verify(token(), appID: app, now: now + 1)
        #expect(verified == VerifiedCustomToken(serviceAccount: email, appID: app, lifetime: nil, issuedAt: now, expiresAt: now + 300))
        #expect(try verifier.verify(token(ttl: "7200s"), appID: app, now: now).lifetime?.seconds == 7_200)
    }

    @Test("accepts a key configured as an X.509 certificate and with no email")
    func certificateKey() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write("key.pem", Array(TestKeys.rsa.pem().utf8))
        let (_, certificate) = try OpenSSLTool.run(["req", "-new", "-x509", "-key", scratch.file("key.pem"), "-subj", "/CN=sa", "-days", "1"])
        let anyEmail = CustomTokenVerifier(serviceAccounts: [try ServiceAccountKey(email: nil, pem: certificate)])
        #expect(try anyEmail.verify(token(iss: "other@x.iam.gserviceaccount.com", sub: "other@x.iam.gserviceaccount.com"), appID: app, now: now).serviceAccount
            == "other@x.iam.gserviceaccount.com")
    }

    @Test("refuses a wrong audience")
    func wrongAudience() throws {
        expect(.wrongAudience, try token(aud: "https://firebaseappcheck.googleapis.com/"))
    }

    @Test("refuses an expired token")
    func expired() throws {
        expect(.expired, try token(iat: now - 300, exp: now))
    }

    @Test("refuses a lifetime over 5 minutes, or negative")
    func lifetimeTooLong() throws {
        expect(.lifetimeTooLong, try token(exp: now + 301))
        expect(.lifetimeTooLong, try token(iat: now + 50, exp: now + 40))
    }

    @Test("refuses a ttl outside 30 minutes to 7 days, or not a Duration")
    func badTTL() throws {
        for ttl in ["60s", "604801s", "3600", "one hour", ""] {
            expect(.badTTL, try token(ttl: ttl))
        }
    }

    @Test("refuses a token for another app")
    func wrongApp() throws {
        expect(.wrongApp, try token(appID: "1:42:ios:other"))
    }

    @Test("refuses iss different from sub, an unknown service account, and a signature by another key")
    func identity() throws {
        expect(.wrongIssuer, try token(sub: "someone@else.com"))
        expect(.unknownServiceAccount, try token(iss: "x@y.com", sub: "x@y.com"))
        expect(.badSignature, try token(signer: TestKeys.rsaOther))
    }

    @Test("refuses algorithms other than RS256, a token from the future, and garbage")
    func algorithmsAndShape() throws {
        expect(.unsupportedAlgorithm, try token(alg: "ES256", signer: TestKeys.p256))
        expect(.unsupportedAlgorithm, try JWTBuilder.token(header: "{\"alg\":\"none\"}", claims: "{}", signer: nil))
        expect(.issuedInFuture, try token(iat: now + 120))
        expect(.malformed, "not.a.token")
        expect(.malformed, try JWTBuilder.token(header: "{\"alg\":\"RS256\"}", claims: "{\"iss\":\"a\"}", signer: TestKeys.rsa))
        #expect(CustomTokenError.badTTL.reason == "customTokenBadTTL")
    }
}
