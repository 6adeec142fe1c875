import AppAttestSimulator
import Crypto
import Testing

@Suite("Simulated receipts are CMS SignedData like Apple's")
struct ReceiptStructureTests {
    @Test("formats times as ISO 8601 UTC with milliseconds")
    func times() {
        #expect(SimulatedReceipt.time(1_776_795_192_153) == Array("2026-04-21T18:13:12.153Z".utf8))
        #expect(SimulatedReceipt.time(0) == Array("1970-01-01T00:00:00.000Z".utf8))
        #expect(SimulatedReceipt.time(951_782_400_007) == Array("2000-02-29T00:00:00.007Z".utf8))
    }

    @Test("an attestation's receipt verifies with OpenSSL to the pinned root and carries Apple's fields")
    func attestationReceipt() throws {
        let device = Fixtures.device()
        let key = device.generateKey()
        let hash = SHA256.hash(Array("challenge".utf8))
        let parts = device.attestation(key, clientDataHash: hash)
        let receipt = try #require(parts.receipt)
        let verified = try #require(OpenSSLCheck.verifyReceipt(receipt, root: Fixtures.receiptCA.rootDER, at: Fixtures.nowSeconds))
        #expect(verified.certificateCount == 3)
        let fields = try #require(ReceiptPayload.fields(verified.content))
        #expect(fields.map(\.type).sorted() == [2, 3, 4, 5, 6, 7, 12, 21])
        #expect(fields.allSatisfy { $0.version == 1 })
        #expect(fields.first { $0.type == 2 }?.value == Array(Fixtures.appID.utf8))
        #expect(fields.first { $0.type == 3 }?.value == parts.certificateChain[0])
        #expect(fields.first { $0.type == 4 }?.value == hash)
        #expect(fields.first { $0.type == 5 }?.value.count == 88)
        #expect(fields.first { $0.type == 6 }?.value == Array("ATTEST".utf8))
        #expect(fields.first { $0.type == 7 }?.value == Array("production".utf8))
        #expect(fields.first { $0.type == 12 }?.value.count == 24)
    }

    @Test("one signer with no signed attributes, and the signing, intermediate and root certificates embedded")
    func signerAndCertificates() throws {
        let receipt = Fixtures.receiptCA.sign(payload: [0x31, 0x00])
        let structure = try #require(OpenSSLCheck.receiptStructure(receipt))
        #expect(structure.signedAttributes == -1)
        #expect(structure.certificates.count == 3)
        #expect(Set(structure.certificates) == [
            Fixtures.receiptCA.signingCertificateDER, Fixtures.receiptCA.intermediateDER, Fixtures.receiptCA.rootDER,
        ])
    }

    @Test("a receipt does not verify to another root, although it embeds its own")
    func embeddedRootIsNotTrusted() throws {
        let device = Fixtures.device()
        let receipt = try #require(device.attestation(device.generateKey(), clientDataHash: [1, 2, 3]).receipt)
        #expect(OpenSSLCheck.verifyReceipt(receipt, root: Fixtures.otherReceiptCA.rootDER, at: Fixtures.nowSeconds) == nil)
    }

    @Test("a BER receipt has indefinite lengths and still verifies")
    func berEncoding() throws {
        let payload = SimulatedReceipt.refreshed(
            appID: Fixtures.appID, credentialCertificateDER: [0x30, 0x00], clientDataHash: [1], environment: .development,
            riskMetric: 5, createdAt: 1_776_795_192_153)
        let ber = Fixtures.receiptCA.sign(payload, encoding: .ber)
        #expect(Array(ber.prefix(2)) == [0x30, 0x80])
        let verified = try #require(OpenSSLCheck.verifyReceipt(ber, root: Fixtures.receiptCA.rootDER, at: Fixtures.nowSeconds))
        #expect(verified.content == payload.payloadDER)
        let fields = try #require(ReceiptPayload.fields(verified.content))
        #expect(fields.map(\.type).sorted() == [2, 3, 4, 5, 6, 7, 12, 17, 19, 21])
        #expect(fields.first { $0.type == 6 }?.value == Array("RECEIPT".utf8))
        #expect(fields.first { $0.type == 7 }?.value == Array("sandbox".utf8))
        #expect(fields.first { $0.type == 17 }?.value == Array("5".utf8))
    }

    @Test("a BER receipt splits its content into 1000-byte chunks of a constructed OCTET STRING, like Apple's")
    func berChunks() throws {
        let device = Fixtures.device()
        let receipt = try #require(device.attestation(device.generateKey(), clientDataHash: [1], options: .init {
            $0.receipt = .signed(.ber, edit: { $0.fields.append(.init(type: 99, value: [UInt8](repeating: 1, count: 400))) })
        }).receipt)
        let chunkStart: [UInt8] = [0x24, 0x80, 0x04, 0x82, 0x03, 0xE8]
        #expect(receipt.indices.contains { receipt[$0...].starts(with: chunkStart) })
        let verified = try #require(OpenSSLCheck.verifyReceipt(receipt, root: Fixtures.receiptCA.rootDER, at: Fixtures.nowSeconds))
        #expect(verified.content.count > 1000)
        #expect(ReceiptPayload.fields(verified.content)?.count == 9)
    }

    @Test("an edit closure changes a field before signing")
    func editedReceipt() throws {
        let device = Fixtures.device()
        let receipt = try #require(device.attestation(device.generateKey(), clientDataHash: [1], options: .init {
            $0.receipt = .signed(edit: { $0[SimulatedReceipt.FieldType.appID] = Array("OTHER.app".utf8) })
        }).receipt)
        let verified = try #require(OpenSSLCheck.verifyReceipt(receipt, root: Fixtures.receiptCA.rootDER, at: Fixtures.nowSeconds))
        #expect(ReceiptPayload.fields(verified.content)?.first { $0.type == 2 }?.value == Array("OTHER.app".utf8))
    }
}
