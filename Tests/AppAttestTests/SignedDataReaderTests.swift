import AppAttest
@testable import Crypto
import Testing

@Suite("CMS SignedData read without OpenSSL")
struct SignedDataReaderTests {
    var receipt: [UInt8] { ((try? AttestationObject(GuideVector.shared.attestation).receipt) ?? nil) ?? [] }

    @Test("reads Apple's BER receipt and verifies its signature on the direct path")
    func directPath() throws {
        let message = CMSMessage(receipt)
        #expect(message != nil)
        #expect(message?.hasValidSignature() == true)
        #expect(message?.signedData.certificatesDER.count == 3)
    }

    @Test("agrees with OpenSSL on the content, the certificates and the signer")
    func agreesWithOpenSSL() throws {
        let direct = try SignedData.verifyingSignature(receipt)
        let openSSL = try SignedData.decodeWithOpenSSL(receipt, verify: true)
        #expect(direct.content == openSSL.content)
        #expect(direct.certificatesDER == openSSL.certificatesDER)
        #expect(direct.signerDER == openSSL.signerDER)
        #expect(try Certificate(derEncoded: direct.signerDER).subject.contains("Fraud Receipt Signing"))
    }

    @Test("declines a message whose content digest no longer matches")
    func digestMismatch() throws {
        var tampered = receipt
        let marker = Array("ATTEST".utf8)
        let index = try #require((0..<tampered.count - marker.count).first { tampered[$0..<$0 + marker.count].elementsEqual(marker) })
        tampered[index] ^= 1
        let message = CMSMessage(tampered)
        #expect(message != nil)
        #expect(message?.hasValidSignature() == false)
        #expect(throws: CryptoError(.badSignature, "")) { try SignedData.verifyingSignature(tampered) }
    }
}
