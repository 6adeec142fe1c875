import Basics
import Crypto
import Foundation
import Testing
import Tokens

@Suite("JWKs and the JWKS")
struct JWKTests {
    @Test("computes the RFC 7638 §3.1 example thumbprint")
    func rfc7638Example() {
        let n = "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"
        let jwk = JWK.rsa(n: n, e: "AQAB")
        #expect(jwk.kid == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
    }

    @Test("derives RSA and EC members from the key, so the thumbprint matches the openssl tool's modulus")
    func membersFromKey() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write("key.pem", Array(TestKeys.rsa.pem().utf8))
        let (_, modulus) = try OpenSSLTool.run(["rsa", "-in", scratch.file("key.pem"), "-noout", "-modulus"])
        let hex = modulus.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "Modulus=", with: "")
        let bytes = stride(from: 0, to: hex.count, by: 2).map { offset -> UInt8 in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
        }
        let jwk = TestKeys.rsa.publicKey.jwk
        #expect(jwk.n == Base64.url.encode(bytes))
        #expect(jwk.e == "AQAB")
        #expect(jwk.kid == JWK.rsa(n: jwk.n, e: jwk.e).kid)

        let ec = TestKeys.p256.publicKey.jwk
        #expect(ec.kty == "EC" && ec.crv == "P-256" && ec.alg == "ES256")
        #expect(Base64.url.decode(ec.x)?.count == 32 && Base64.url.decode(ec.y)?.count == 32)
    }

    @Test("publishes every key of the set as {\"keys\":[…]} with the fields JWKS fetchers need")
    func jwksDocument() throws {
        let set = try SigningKeySet(keys: [TestKeys.rsa, TestKeys.p256], signingWith: .es256)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(set.jwksJSON(at: 0))) as? [String: Any])
        let keys = try #require(root["keys"] as? [[String: String]])
        #expect(keys.count == 2)
        #expect(keys[0] == ["kty": "RSA", "use": "sig", "alg": "RS256", "kid": TestKeys.rsa.publicKey.jwk.kid,
                            "n": TestKeys.rsa.publicKey.jwk.n, "e": "AQAB"])
        let ec = TestKeys.p256.publicKey.jwk
        #expect(keys[1] == ["kty": "EC", "use": "sig", "alg": "ES256", "kid": ec.kid, "crv": "P-256", "x": ec.x, "y": ec.y])
        #expect(set.jwks(at: 0).map(\.kid) == keys.map { $0["kid"]! })
    }

    @Test("refuses an empty key set and the same key twice")
    func refusesBadSets() throws {
        #expect(throws: SigningKeySetError.empty) { try SigningKeySet(keys: [], signingWith: .rs256) }
        let copy = try PrivateKey(pem: TestKeys.rsa.pem())
        #expect(throws: SigningKeySetError.duplicateKey) { try SigningKeySet(keys: [TestKeys.rsa, copy], signingWith: .rs256) }
    }

    @Test("loads the key set from PEM files, the last one of the configured algorithm signing")
    func loadsFiles() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write("old.pem", Array(TestKeys.rsaOther.pem().utf8))
        try scratch.write("new.pem", Array(TestKeys.p256.pem().utf8))
        let files = [scratch.file("old.pem"), scratch.file("new.pem")]
        let es256 = try SigningKeySet(pemFiles: files, signingWith: .es256)
        #expect(es256.signer(at: 0)?.kid == TestKeys.p256.publicKey.jwk.kid)
        #expect(es256.entries.count == 2)
        let rs256 = try SigningKeySet(pemFiles: files, signingWith: .rs256)
        #expect(rs256.signer(at: 0)?.kid == TestKeys.rsaOther.publicKey.jwk.kid)
        #expect(throws: SigningKeySetError.unreadableFile) {
            try SigningKeySet(pemFiles: [scratch.file("missing.pem")], signingWith: .rs256)
        }
        try scratch.write("bad.pem", Array("not a key".utf8))
        #expect(throws: SigningKeySetError.invalidKey) { try SigningKeySet(pemFiles: [scratch.file("bad.pem")], signingWith: .rs256) }
    }

    @Test("a P-256 key appended to RS256 keys is published but never signs: only tokens.algorithm picks ES256")
    func algorithmIsConfiguredNotInferred() throws {
        let set = try SigningKeySet(keys: [TestKeys.rsa, TestKeys.p256], signingWith: .rs256)
        #expect(set.signer(at: 0)?.kid == TestKeys.rsa.publicKey.jwk.kid)
        #expect(set.signer(at: 0)?.privateKey.algorithm == .rs256)
        #expect(set.jwks(at: 0).map(\.kid).sorted() == [TestKeys.rsa, TestKeys.p256].map(\.publicKey.jwk.kid).sorted())
    }

    @Test("a set with no key of the configured algorithm is refused")
    func refusesSetWithoutTheAlgorithm() {
        #expect(throws: SigningKeySetError.noKeyForAlgorithm) { try SigningKeySet(keys: [TestKeys.p256], signingWith: .rs256) }
        #expect(throws: SigningKeySetError.noKeyForAlgorithm) { try SigningKeySet(keys: [TestKeys.rsa], signingWith: .es256) }
    }
}
