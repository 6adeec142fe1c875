import Foundation
import Synchronization
import Testing
@testable import Crypto

/// ES256 keys sign with nonces prepared eight at a time and pooled (`ES256Signer`): every signature must verify,
/// and no nonce may ever serve twice (a repeated r would give the private key away).
@Suite("ES256 signatures with prepared nonces")
struct ES256SignerTests {
    @Test("signatures across many batches verify, each with a nonce of its own")
    func signaturesVerifyWithDistinctNonces() throws {
        let key = try PrivateKey.generate(.es256)
        let verifier = try PublicKey(pemEncoded: key.publicKey.pem())
        var nonces = Set<[UInt8]>()
        for index in 0..<200 {
            let message = [UInt8]("claims \(index)".utf8)
            let signature = try key.sign(message)
            #expect(signature.count == 64)
            #expect(key.publicKey.isValidSignature(signature, for: message))
            #expect(!key.publicKey.isValidSignature(signature, for: message + [0]))
            // Checked again through OpenSSL's EVP verification of the DER form, apart from the JWS code.
            let der = try #require(SigningSignatureEncoding.der(fromRaw: signature))
            #expect(verifier.isValidSignature(der, for: message))
            #expect(nonces.insert(Array(signature.prefix(32))).inserted)
        }
    }

    @Test("threads signing at once share the pool without handing a nonce out twice")
    func concurrentSignersNeverShareANonce() throws {
        let key = try PrivateKey.generate(.es256)
        let results = Mutex<[(r: [UInt8], valid: Bool)]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<50 {
                let message = [UInt8]("thread \(thread) claims \(index)".utf8)
                guard let signature = try? key.sign(message) else { continue }
                let valid = key.publicKey.isValidSignature(signature, for: message)
                results.withLock { $0.append((Array(signature.prefix(32)), valid)) }
            }
        }
        let all = results.withLock { $0 }
        #expect(all.count == 400)
        #expect(all.allSatisfy { $0.valid })
        #expect(Set(all.map(\.r)).count == 400)
    }

    @Test("the signer takes P-256 private keys only")
    func onlyP256() throws {
        let p256 = try PrivateKey.generate(.es256)
        let rsa = try PrivateKey.generate(.rs256)
        #expect(p256.hasPreparedNonces)
        #expect(!rsa.hasPreparedNonces)
    }
}
