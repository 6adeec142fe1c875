import AppAttest
import AppAttestSimulator
import Crypto
import Testing

/// Receipts signed by a simulated receipt CA, checked on their own and as the risk signal inside an attestation.
@Suite("Simulated receipts")
struct SimulatedReceiptTests {
    let verifier = ReceiptVerifier(trustAnchorsDER: [SimulatedFixtures.receiptCA.rootDER])
    let certificate = SimulatedAttestationCase().attestation.certificateChain[0]
    let createdAt = SimulatedFixtures.time * 1000 + 153

    func receipt(_ kind: String = "ATTEST", receiptCA: SimulatedReceiptCA = SimulatedFixtures.receiptCA,
                 encoding: SimulatedReceiptCA.Encoding = .der,
                 edit: (inout SimulatedReceipt) -> Void = { _ in }) -> [UInt8] {
        var payload = kind == "ATTEST"
            ? SimulatedReceipt.attest(
                appID: SimulatedFixtures.appIDString, credentialCertificateDER: certificate, clientDataHash: [7, 7, 7],
                environment: .production, createdAt: createdAt)
            : SimulatedReceipt.refreshed(
                appID: SimulatedFixtures.appIDString, credentialCertificateDER: certificate, clientDataHash: [7, 7, 7],
                environment: .development, riskMetric: 5, createdAt: createdAt)
        edit(&payload)
        return receiptCA.sign(payload, encoding: encoding)
    }

    var certificateKey: [UInt8] {
        (try? Certificate(derEncoded: certificate))?.publicKey?.ecPoint ?? []
    }

    @Test("parses and verifies an attestation receipt's fields")
    func attestReceipt() throws {
        let parsed = try verifier.verify(
            receipt(), appID: SimulatedFixtures.appID, publicKey: certificateKey, at: SimulatedFixtures.time)
        #expect(parsed.appID == SimulatedFixtures.appIDString)
        #expect(parsed.attestedCertificateDER == certificate)
        #expect(parsed.clientHash == [7, 7, 7])
        #expect(parsed.token.count == 88)
        #expect(parsed.type == "ATTEST")
        #expect(parsed.environment == "production")
        #expect(parsed.creationTime == SimulatedFixtures.time)
        #expect(parsed.expirationTime == SimulatedFixtures.time + 90 * SimulatedFixtures.day)
        #expect(parsed.riskMetric == nil)
    }

    @Test("parses a refreshed receipt in BER, its content in 1000-byte chunks, with its risk metric and not-before")
    func refreshedBERReceipt() throws {
        // An unknown 400-byte field makes the content longer than one chunk.
        let der = receipt("RECEIPT", encoding: .ber) { $0.fields.append(.init(type: 99, value: [UInt8](repeating: 1, count: 400))) }
        #expect(Array(der.prefix(2)) == [0x30, 0x80])
        #expect(der.indices.contains { der[$0...].starts(with: [0x24, 0x80, 0x04, 0x82, 0x03, 0xE8]) })
        let parsed = try verifier.verify(der, appID: SimulatedFixtures.appID, publicKey: nil, at: SimulatedFixtures.time)
        #expect(parsed.type == "RECEIPT")
        #expect(parsed.environment == "sandbox")
        #expect(parsed.riskMetric == 5)
        #expect(parsed.notBefore == SimulatedFixtures.time + SimulatedFixtures.day)
    }

    @Test("ignores unknown fields")
    func unknownFields() throws {
        let der = receipt { $0.fields.append(.init(type: 99, value: [1, 2, 3])) }
        #expect(try verifier.verify(der, appID: SimulatedFixtures.appID, publicKey: nil, at: SimulatedFixtures.time).type == "ATTEST")
    }

    @Test("refuses a receipt whose chain ends only at the root embedded in it as receiptChainInvalid(untrusted)")
    func embeddedRootOnly() {
        let der = receipt(receiptCA: SimulatedFixtures.untrustedReceiptCA)
        #expect(throws: AppAttestError(.receiptChainInvalid("untrusted"))) {
            try verifier.verify(der, appID: SimulatedFixtures.appID, publicKey: nil, at: SimulatedFixtures.time)
        }
    }

    @Test("refuses a receipt for another App ID as receiptAppIdMismatch")
    func otherAppID() {
        let der = receipt { $0[SimulatedReceipt.FieldType.appID] = Array("OTHERTEAM1.com.example.other".utf8) }
        #expect(throws: AppAttestError(.receiptAppIdMismatch)) {
            try verifier.verify(der, appID: SimulatedFixtures.appID, publicKey: nil, at: SimulatedFixtures.time)
        }
    }

    @Test("refuses a receipt for another key as receiptKeyMismatch")
    func otherKey() {
        let other = SimulatedFixtures.device().generateKey()
        #expect(throws: AppAttestError(.receiptKeyMismatch)) {
            try verifier.verify(receipt(), appID: SimulatedFixtures.appID, publicKey: other.publicKey, at: SimulatedFixtures.time)
        }
    }

    @Test("refuses a receipt older than the maximum age as receiptTooOld")
    func tooOld() throws {
        let der = receipt()
        let fresh = try verifier.verify(
            der, appID: SimulatedFixtures.appID, publicKey: nil, at: SimulatedFixtures.time + 299, maximumAge: 300)
        #expect(fresh.creationTime == SimulatedFixtures.time)
        #expect(throws: AppAttestError(.receiptTooOld)) {
            try verifier.verify(der, appID: SimulatedFixtures.appID, publicKey: nil, at: SimulatedFixtures.time + 301, maximumAge: 300)
        }
    }

    @Test("refuses a receipt whose signing certificate expired as receiptChainInvalid(expired)")
    func expiredSigner() {
        let expiring = SimulatedReceiptCA(name: "Expiring", signerValidUntil: SimulatedFixtures.time - 1)
        let der = receipt(receiptCA: expiring)
        let verifier = ReceiptVerifier(trustAnchorsDER: [expiring.rootDER])
        #expect(throws: AppAttestError(.receiptChainInvalid("expired"))) {
            try verifier.verify(der, appID: SimulatedFixtures.appID, publicKey: nil, at: SimulatedFixtures.time)
        }
    }

    // MARK: Inside an attestation: a risk signal, never a reason to refuse

    @Test("an attestation without a receipt verifies and says the receipt is missing")
    func missingInAttestation() throws {
        let verified = try SimulatedAttestationCase(options: .init { $0.receipt = .omitted }).verify()
        guard case .missing = verified.receipt else {
            Issue.record("expected .missing, got \(verified.receipt)")
            return
        }
    }

    @Test("an attestation with an empty receipt verifies and says the receipt is empty")
    func emptyInAttestation() throws {
        let verified = try SimulatedAttestationCase(options: .init { $0.receipt = .empty }).verify()
        guard case .empty = verified.receipt else {
            Issue.record("expected .empty, got \(verified.receipt)")
            return
        }
    }

    @Test("an attestation whose receipt is signed by an untrusted chain verifies and records why the receipt failed")
    func untrustedInAttestation() throws {
        let verified = try SimulatedAttestationCase(receiptCA: SimulatedFixtures.untrustedReceiptCA).verify()
        guard case .unverifiable(let error) = verified.receipt else {
            Issue.record("expected .unverifiable, got \(verified.receipt)")
            return
        }
        #expect(error == AppAttestError(.receiptChainInvalid("untrusted")))
    }

    @Test("an attestation whose receipt names another client hash records receiptClientHashMismatch")
    func clientHashInAttestation() throws {
        let verified = try SimulatedAttestationCase(options: .init {
            $0.receipt = .signed(edit: { $0[SimulatedReceipt.FieldType.clientHash] = [0] })
        }).verify()
        guard case .unverifiable(let error) = verified.receipt else {
            Issue.record("expected .unverifiable, got \(verified.receipt)")
            return
        }
        #expect(error == AppAttestError(.receiptClientHashMismatch))
    }

    @Test("an attestation with a BER receipt, as Apple sends them, verifies it")
    func berInAttestation() throws {
        let verified = try SimulatedAttestationCase(options: .init { $0.receipt = .signed(.ber) }).verify()
        guard case .verified(let receipt) = verified.receipt else {
            Issue.record("expected .verified, got \(verified.receipt)")
            return
        }
        #expect(receipt.environment == "production")
    }
}
