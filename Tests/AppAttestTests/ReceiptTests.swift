import AppAttest
import Crypto
import Testing

@Suite("Receipts of the guide vector")
struct ReceiptTests {
    let vector = GuideVector.shared
    var receipt: [UInt8] { ((try? AttestationObject(vector.attestation).receipt) ?? nil) ?? [] }
    var publicKey: [UInt8] {
        ((try? AttestationObject(vector.attestation))?.authenticatorData.attestedCredential?.publicKey.uncompressedPoint) ?? []
    }

    @Test("parses every documented field of a BER receipt with chunked content")
    func fields() throws {
        #expect(receipt.starts(with: [0x30, 0x80]))
        let parsed = try ReceiptVerifier().verify(receipt, appID: vector.appID, publicKey: publicKey, at: vector.verifyAt)
        let leaf = try AttestationObject(vector.attestation).certificateChainDER[0]
        #expect(parsed.attestedCertificateDER == leaf)
        #expect(parsed.clientHash == Array("example_server_challenge".utf8))
        #expect(parsed.token.count > 20)
        #expect(parsed.type == "ATTEST")
        #expect(parsed.riskMetric == nil)
        #expect(parsed.expirationTime.map { $0 > parsed.creationTime } == true)
    }

    @Test("refuses another App ID, another key, and an old receipt when freshness is asked for")
    func payloadChecks() {
        #expect(throws: AppAttestError(.receiptAppIdMismatch)) {
            try ReceiptVerifier().verify(receipt, appID: AppID("1234567890.com.other")!, publicKey: publicKey, at: vector.verifyAt)
        }
        var otherKey = publicKey
        otherKey[64] ^= 1
        #expect(throws: AppAttestError(.receiptKeyMismatch)) {
            try ReceiptVerifier().verify(receipt, appID: vector.appID, publicKey: otherKey, at: vector.verifyAt)
        }
        #expect(throws: AppAttestError(.receiptTooOld)) {
            try ReceiptVerifier().verify(
                receipt, appID: vector.appID, publicKey: publicKey, at: vector.verifyAt + 86_400, maximumAge: 300)
        }
    }

    @Test("refuses a receipt whose chain ends only at the root it embeds")
    func embeddedRootIsNotTrusted() {
        #expect(throws: AppAttestError(.receiptChainInvalid("untrusted"))) {
            try ReceiptVerifier(trustAnchorsDER: AppleRoots.appAttestationRootDER)
                .verify(receipt, appID: vector.appID, publicKey: publicKey, at: vector.verifyAt)
        }
    }

    @Test("refuses a receipt whose content was altered")
    func tampered() throws {
        var tampered = receipt
        let marker = Array("ATTEST".utf8)
        let index = try #require((0..<tampered.count - marker.count).first { tampered[$0..<$0 + marker.count].elementsEqual(marker) })
        tampered[index + 5] = UInt8(ascii: "U")
        #expect(throws: AppAttestError(.receiptSignatureInvalid)) {
            try ReceiptVerifier().verify(tampered, appID: vector.appID, publicKey: publicKey, at: vector.verifyAt)
        }
        #expect(throws: AppAttestError(.malformed("receipt"))) {
            try ReceiptVerifier().verify(Array(receipt.prefix(100)), appID: vector.appID, publicKey: publicKey, at: vector.verifyAt)
        }
    }

    @Test("does not fail the attestation when the receipt is unverifiable, and says why")
    func unverifiableReceiptKeepsAttestation() throws {
        let verifier = AttestationVerifier(receiptVerifier: ReceiptVerifier(trustAnchorsDER: AppleRoots.appAttestationRootDER))
        let result = try verifier.verify(
            attestationObject: vector.attestation, keyID: vector.keyID, clientDataHash: vector.clientDataHash,
            appIDs: [vector.appID], environment: .production, at: vector.verifyAt)
        guard case .unverifiable(let error) = result.receipt else {
            Issue.record("expected an unverifiable receipt, got \(result.receipt)")
            return
        }
        #expect(error.reason == .receiptChainInvalid("untrusted"))
    }
}
