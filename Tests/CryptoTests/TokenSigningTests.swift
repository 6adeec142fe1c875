import Foundation
import Synchronization
import Testing
@testable import Crypto

/// Token signatures are OpenSSL's (`EVP_PKEY_sign`), nonces included: every signature must verify, and an ECDSA
/// nonce is made for each signature (a repeated r would give the private key away).
@Suite("Token signatures through EVP")
struct TokenSigningTests {
    @Test("ES256 signatures verify, each with a nonce of its own, the same message signed twice included")
    func es256SignaturesVerifyWithDistinctNonces() throws {
        let key = try PrivateKey.generate(.es256)
        let verifier = try PublicKey(pemEncoded: key.publicKey.pem())
        var nonces = Set<[UInt8]>()
        for index in 0..<100 {
            let message = [UInt8]("claims \(index / 2)".utf8)
            let signature = try key.sign(message)
            #expect(signature.count == 64)
            #expect(key.publicKey.isValidSignature(signature, for: message))
            #expect(!key.publicKey.isValidSignature(signature, for: message + [0]))
            // Checked again through the DER form and `PublicKey`, apart from the JWS code.
            let der = try #require(SigningSignatureEncoding.der(fromRaw: signature))
            #expect(verifier.isValidSignature(der, for: message))
            #expect(nonces.insert(Array(signature.prefix(32))).inserted)
        }
    }

    @Test("threads signing at once with one key never share a nonce")
    func concurrentSignersNeverShareANonce() throws {
        let key = try PrivateKey.generate(.es256)
        let results = Mutex<[(r: [UInt8], valid: Bool)]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<25 {
                let message = [UInt8]("thread \(thread) claims \(index)".utf8)
                guard let signature = try? key.sign(message) else { continue }
                let valid = key.publicKey.isValidSignature(signature, for: message)
                results.withLock { $0.append((Array(signature.prefix(32)), valid)) }
            }
        }
        let all = results.withLock { $0 }
        #expect(all.count == 200)
        #expect(all.allSatisfy { $0.valid })
        #expect(Set(all.map(\.r)).count == 200)
    }

    @Test("an Apple .p8 key (PKCS#8 P-256) signs ES256 through the same path")
    func p8Key() throws {
        let generated = try PrivateKey.generate(.es256)
        let pem = generated.pem()
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let key = try PrivateKey(pem: pem)
        #expect(key.algorithm == .es256)
        let message = [UInt8]("eyJhbGciOiJFUzI1NiIsImtpZCI6IkFCQzEyMyJ9.eyJpc3MiOiJERVZURUFNMTIzIn0".utf8)
        #expect(generated.publicKey.isValidSignature(try key.sign(message), for: message))
    }

    @Test("RS256 signatures are PKCS#1 v1.5: deterministic, and they verify")
    func rs256() throws {
        let key = try PrivateKey.generate(.rs256)
        let message = [UInt8]("claims".utf8)
        let first = try key.sign(message)
        #expect(first.count == 256)
        #expect(try key.sign(message) == first)
        #expect(key.publicKey.isValidSignature(first, for: message))
        #expect(!key.publicKey.isValidSignature(first, for: message + [0]))
    }
}
