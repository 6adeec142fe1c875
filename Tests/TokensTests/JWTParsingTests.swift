import Crypto
import Testing
import Tokens

/// The JSON of headers and claims, checked through the verifier so only the public behaviour is pinned.
@Suite("JWT JSON parsing")
struct JWTParsingTests {
    let now: Int64 = 1_800_000_000
    let set = try! SigningKeySet(keys: [TestKeys.p256], signingWith: .es256)
    var verifier: AppCheckTokenVerifier { AppCheckTokenVerifier(keys: set) }
    var header: String { "{\"alg\":\"ES256\",\"typ\":\"JWT\",\"kid\":\"\(TestKeys.p256.publicKey.jwk.kid)\"}" }

    func claims(sub: String = "\"1:42:ios:a\"", extra: String = "") -> String {
        "{\"iss\":\"https://firebaseappcheck.googleapis.com/42\",\"sub\":\(sub),\"aud\":[\"projects/p\"],\"iat\":\(now),\"exp\":\(now + 60),\"jti\":\"j\"\(extra)}"
    }

    func verify(header: String? = nil, _ claims: String) throws -> VerifiedAppCheckToken {
        try verifier.verify(try JWTBuilder.token(header: header ?? self.header, claims: claims, signer: TestKeys.p256), project: "p", now: now)
    }

    @Test("decodes string escapes, including surrogate pairs")
    func escapes() throws {
        #expect(try verify(claims(sub: "\"a\\u00e9\\ud83d\\ude00\\n\\\"\\\\\\/\"")).appID == "aé😀\n\"\\/")
        #expect(try verify(claims(sub: "\"aé😀\"")).appID == "aé😀")
    }

    @Test("ignores unknown members of any type, and whitespace")
    func ignoresOthers() throws {
        let extra = ", \"nested\": {\"a\": [1, 2.5e3, {\"b\": null}]}, \"flag\": true, \"n\": -0.5, \"list\": [] "
        #expect(try verify(" \n" + claims(extra: extra) + "\t").appID == "1:42:ios:a")
        let headerWithExtras = "{\"alg\":\"ES256\",\"typ\":\"JWT\",\"kid\":\"\(TestKeys.p256.publicKey.jwk.kid)\",\"x5u\":null}"
        #expect(throws: Never.self) { try verify(header: headerWithExtras, claims()) }
    }

    @Test("refuses duplicate members, trailing text, bad escapes, raw control characters and non-integer times")
    func refusals() {
        let bad = [
            claims(extra: ",\"exp\":\(now + 999_999)"),
            claims() + "x",
            claims() + "{}",
            claims(sub: "\"\\x\""),
            claims(sub: "\"\\ud83d\""),
            claims(sub: "\"\\udc00\""),
            claims(sub: "\"a\u{01}b\""),
            claims(sub: "\"a"),
            claims(extra: ",\"deep\":" + String(repeating: "[", count: 20) + String(repeating: "]", count: 20)),
            claims(extra: ",\"n\":01"),
            claims(extra: ",\"n\":1."),
            claims(extra: ",\"n\":tru"),
            "{\"iss\":\"https://firebaseappcheck.googleapis.com/42\",\"sub\":\"s\",\"aud\":[\"projects/p\"],\"iat\":\(now),\"exp\":1.8e9,\"jti\":\"j\"}",
            "[]",
        ]
        for text in bad {
            #expect(throws: AppCheckTokenError.malformed, "\(text)") { try verify(text) }
        }
        #expect(throws: AppCheckTokenError.malformed) { try verify(header: "{\"alg\":\"ES256\",\"alg\":\"ES256\"}", claims()) }
    }
}
