import Basics
import Crypto
import Testing
import Tokens

@Suite("Signing keys")
struct SigningKeyTests {
    @Test("reads RSA and P-256 keys in PKCS#8 and traditional PEM")
    func readsEveryPEMForm() throws {
        let forms: [([String], SigningAlgorithm)] = [
            (["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"], .rs256),
            (["genrsa", "-traditional", "2048"], .rs256),
            (["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"], .es256),
            (["ecparam", "-name", "prime256v1", "-genkey", "-noout"], .es256),
        ]
        for (arguments, algorithm) in forms {
            let pem = try OpenSSLTool.generate(arguments)
            let key = try PrivateKey(pem: pem)
            #expect(key.algorithm == algorithm, "\(arguments)")
            let signature = try key.sign(Array("message".utf8))
            #expect(key.publicKey.isValidSignature(signature, for: Array("message".utf8)))
        }
    }

    @Test("refuses RSA keys under 2048 bits, other curves, and text that is not a key")
    func refusesUnusableKeys() throws {
        let weak = try OpenSSLTool.generate(["genrsa", "-traditional", "1024"])
        #expect(throws: PrivateKeyError.tooWeak) { try PrivateKey(pem: weak) }
        let p384 = try OpenSSLTool.generate(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"])
        #expect(throws: PrivateKeyError.unsupported) { try PrivateKey(pem: p384) }
        let ed25519 = try OpenSSLTool.generate(["genpkey", "-algorithm", "ED25519"])
        #expect(throws: PrivateKeyError.unsupported) { try PrivateKey(pem: ed25519) }
        #expect(throws: PrivateKeyError.unreadable) { try PrivateKey(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n") }
        let encrypted = try OpenSSLTool.generate([
            "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-aes256", "-pass", "pass:secret",
        ])
        #expect(encrypted.contains("ENCRYPTED"))
        #expect(throws: PrivateKeyError.unreadable, "refused without prompting for a passphrase") { try PrivateKey(pem: encrypted) }
        #expect(throws: PublicKeyError.unreadable) { try JWSPublicKey(pem: "no key here") }
        let p256Public = try PrivateKey.generate(.es256).publicKey.pem()
        #expect(try JWSPublicKey(pem: p256Public).algorithm == .es256)
    }

    @Test("writes PKCS#8 PEM that reads back as the same key")
    func pemRoundTrip() throws {
        for key in [TestKeys.rsa, TestKeys.p256] {
            let pem = key.pem()
            #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
            let again = try PrivateKey(pem: pem)
            #expect(again.publicKey.jwk == key.publicKey.jwk)
            #expect(try JWSPublicKey(pem: key.publicKey.pem()).jwk == key.publicKey.jwk)
        }
    }

    @Test("reads the public key of an X.509 certificate")
    func publicKeyFromCertificate() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write("key.pem", Array(TestKeys.rsa.pem().utf8))
        let (status, output) = try OpenSSLTool.run([
            "req", "-new", "-x509", "-key", scratch.file("key.pem"), "-subj", "/CN=service-account", "-days", "1",
        ])
        #expect(status == 0, "\(output)")
        let key = try JWSPublicKey(pem: output)
        #expect(key.jwk == TestKeys.rsa.publicKey.jwk)
    }

    @Test("makes ES256 signatures as 64-byte r‖s that the openssl tool verifies after conversion to DER")
    func es256IsRawAndStandard() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let message = Array("header.payload".utf8)
        let signature = try TestKeys.p256.sign(message)
        #expect(signature.count == 64)
        try scratch.write("public.pem", Array(TestKeys.p256.publicKey.pem().utf8))
        try scratch.write("message", message)
        try scratch.write("signature", derSignature(fromRaw: signature))
        let (status, output) = try OpenSSLTool.run([
            "dgst", "-sha256", "-verify", scratch.file("public.pem"), "-signature", scratch.file("signature"), scratch.file("message"),
        ])
        #expect(status == 0 && output.contains("Verified OK"), "\(output)")
    }

    @Test("refuses a signature over another message, by another key, or of the wrong size")
    func refusesWrongSignatures() throws {
        for (key, other) in [(TestKeys.rsa, TestKeys.rsaOther), (TestKeys.p256, TestKeys.p256Other)] {
            let message = Array("signed".utf8)
            let signature = try key.sign(message)
            #expect(key.publicKey.isValidSignature(signature, for: message))
            #expect(!key.publicKey.isValidSignature(signature, for: Array("signeD".utf8)))
            #expect(!other.publicKey.isValidSignature(signature, for: message))
            #expect(!key.publicKey.isValidSignature(Array(signature.dropLast()), for: message))
            #expect(!key.publicKey.isValidSignature([UInt8](), for: message))
        }
    }

    @Test("signs from many threads at once with one key")
    func concurrentSigning() async throws {
        for key in [TestKeys.rsa, TestKeys.p256] {
            let results = await withTaskGroup(of: Bool.self) { group in
                for index in 0..<64 {
                    group.addTask {
                        let message = Array("message \(index)".utf8)
                        guard let signature = try? key.sign(message) else { return false }
                        return key.publicKey.isValidSignature(signature, for: message)
                    }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(results.count == 64 && results.allSatisfy { $0 })
        }
    }
}

@Suite("Compact JWS signing")
struct JWSTests {
    @Test("signs header and claims as three base64url segments over the standard signing input")
    func signsCompactJWS() throws {
        let token = try JWS.sign(header: "{\"alg\":\"ES256\",\"kid\":\"ABC123DEFG\"}", claims: "{\"iss\":\"TEAMID\",\"iat\":1}", with: TestKeys.p256)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3)
        #expect(Base64.url.decode(parts[0]) == Array("{\"alg\":\"ES256\",\"kid\":\"ABC123DEFG\"}".utf8))
        #expect(Base64.url.decode(parts[1]) == Array("{\"iss\":\"TEAMID\",\"iat\":1}".utf8))
        let signature = try #require(Base64.url.decode(parts[2]))
        #expect(TestKeys.p256.publicKey.isValidSignature(signature, for: Array("\(parts[0]).\(parts[1])".utf8)))
    }
}
