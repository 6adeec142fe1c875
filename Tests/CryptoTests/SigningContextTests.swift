import Foundation
import Synchronization
import Testing
@testable import Crypto

/// Signing and verification reuse OpenSSL contexts set up once per key; a reused context must give every call the
/// answer a fresh one would, on any thread.
@Suite("Reused signing and verification contexts")
struct SigningContextTests {
    @Test("a reused verification context accepts good signatures and refuses bad ones in any order, on many threads")
    func verificationContextsAreReusable() throws {
        let signer = try PrivateKey.generate(.es256)
        let key = try PublicKey(pemEncoded: signer.publicKey.pem())
        let messages = (0..<8).map { [UInt8]("message \($0)".utf8) }
        let signatures = try messages.map { message in
            try #require(SigningSignatureEncoding.der(fromRaw: try signer.sign(message)))
        }
        let outcomes = Mutex<[Bool]>([])
        DispatchQueue.concurrentPerform(iterations: 64) { index in
            let which = index % messages.count
            let good = key.isValidSignature(signatures[which], for: messages[which])
            let wrongMessage = key.isValidSignature(signatures[which], for: messages[(which + 1) % messages.count])
            let wrongDigest = key.isValidSignature(signatures[which], for: messages[which], digest: .sha384)
            outcomes.withLock { $0.append(good && !wrongMessage && !wrongDigest) }
        }
        #expect(outcomes.withLock { $0.count == 64 && $0.allSatisfy { $0 } })
    }

    @Test("a reused signing context makes signatures that verify, for RSA and P-256 keys, on many threads")
    func signingContextsAreReusable() throws {
        for algorithm in [SigningAlgorithm.rs256, .es256] {
            let signer = try PrivateKey.generate(algorithm)
            let verified = Mutex(0)
            DispatchQueue.concurrentPerform(iterations: 16) { index in
                let message = [UInt8]("claims \(index)".utf8)
                guard let signature = try? signer.sign(message) else { return }
                if signer.publicKey.isValidSignature(signature, for: message)
                    && !signer.publicKey.isValidSignature(signature, for: message + [0]) {
                    verified.withLock { $0 += 1 }
                }
            }
            #expect(verified.withLock { $0 } == 16, "\(algorithm)")
        }
    }
}
