import AppAttestSimulator
import Crypto
import Testing

@Suite("Simulated attestations are shaped like Apple's")
struct AttestationStructureTests {
    let clientDataHash = SHA256.hash(Array("challenge".utf8))

    @Test("the object is a map of fmt, attStmt and authData in Apple's order, with x5c of two and a receipt")
    func envelope() throws {
        let device = Fixtures.device()
        let object = device.attest(device.generateKey(), clientDataHash: clientDataHash)
        let item = try #require(CBORItem.decode(object))
        #expect(item.keys == ["fmt", "attStmt", "authData"])
        #expect(item["fmt"] == .text("apple-appattest"))
        let statement = try #require(item["attStmt"])
        #expect(statement.keys == ["x5c", "receipt"])
        #expect(statement["x5c"]?.array?.count == 2)
        #expect(statement["x5c"]?.array?[1].bytes == Fixtures.ca.intermediateDER)
        #expect((statement["receipt"]?.bytes?.count ?? 0) > 500)
    }

    @Test("authData has Apple's layout: rpIdHash, flags 0x40, counter 0, aaguid, credentialId = keyId, COSE key")
    func authenticatorDataLayout() throws {
        let device = Fixtures.device()
        let key = device.generateKey()
        let parts = device.attestation(key, clientDataHash: clientDataHash)
        let data = parts.authenticatorData
        #expect(data.count == 164)
        #expect(Array(data[0..<32]) == SHA256.hash(Array(Fixtures.appID.utf8)))
        #expect(data[32] == 0x40)
        #expect(Array(data[33..<37]) == [0, 0, 0, 0])
        #expect(Array(data[37..<53]) == Array("appattest".utf8) + [0, 0, 0, 0, 0, 0, 0])
        #expect(Array(data[53..<55]) == [0x00, 0x20])
        #expect(Array(data[55..<87]) == key.keyID)
        let cose = Array(data[87..<164])
        #expect(Array(cose.prefix(10)) == [0xA5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20])
        #expect(Array(cose[10..<42]) == Array(key.publicKey[1..<33]))
        #expect(Array(cose[42..<45]) == [0x22, 0x58, 0x20])
        #expect(Array(cose[45..<77]) == Array(key.publicKey[33..<65]))
        #expect(CBORItem.decode(parts.object)?["authData"]?.bytes == data)
    }

    @Test("a development device writes the appattestdevelop aaguid")
    func developmentAaguid() {
        let device = Fixtures.device(.development)
        let data = device.attestation(device.generateKey(), clientDataHash: clientDataHash).authenticatorData
        #expect(Array(data[37..<53]) == Array("appattestdevelop".utf8))
    }

    @Test("iOS 27 extensions follow the COSE key with the ED flag clear, 226 bytes like Apple's sample")
    func extensionsMap() throws {
        let device = Fixtures.device(extensions: .appleGuideSample)
        let data = device.attestation(device.generateKey(), clientDataHash: clientDataHash).authenticatorData
        #expect(data.count == 226)
        #expect(data[32] & 0x80 == 0)
        let map = try #require(CBORItem.decode(Array(data[164...])))
        #expect(map.keys == ["apple_bundle_version_01", "apple_validation_category_01"])
        #expect(map["apple_validation_category_01"]?.bytes == [1, 0, 0, 0])
        #expect(map["apple_bundle_version_01"] == .text("1"))
    }

    @Test("the chain verifies with OpenSSL to the simulated root alone, and not to another root")
    func chainVerifies() {
        let device = Fixtures.device()
        let chain = device.attestation(device.generateKey(), clientDataHash: clientDataHash).certificateChain
        let time = Fixtures.nowSeconds
        #expect(OpenSSLCheck.verifyChain(leaf: chain[0], intermediate: chain[1], root: Fixtures.ca.rootDER, at: time) == 0)
        #expect(OpenSSLCheck.verifyChain(leaf: chain[0], intermediate: chain[1], root: Fixtures.otherCA.rootDER, at: time) != 0)
    }

    @Test("the leaf carries the exact nonce extension DER, CN = hex keyId, the key, and a 72-hour SHA-256 signature")
    func leafCertificate() throws {
        let device = Fixtures.device()
        let key = device.generateKey()
        let parts = device.attestation(key, clientDataHash: clientDataHash, options: .init { $0.issuedAt = Fixtures.guideTime })
        let leaf = try #require(OpenSSLCheck.X509Certificate(der: parts.certificateChain[0]))
        #expect(parts.nonce == SHA256.hash(parts.authenticatorData + clientDataHash))
        #expect(leaf.extensionValue("1.2.840.113635.100.8.2") == [0x30, 0x24, 0xA1, 0x22, 0x04, 0x20] + parts.nonce)
        #expect(leaf.subjectCommonName == hex(key.keyID))
        #expect(leaf.publicPoint == key.publicKey)
        #expect(leaf.signatureAlgorithm == "ecdsa-with-SHA256")
        #expect(leaf.validitySeconds == 72 * 3600)
        #expect(leaf.notBefore(equals: Fixtures.guideTime - 86_400))
        let appIDExtension = try #require(leaf.extensionValue("1.2.840.113635.100.8.5"))
        #expect(Array(appIDExtension.prefix(5)) == [0x30, UInt8(appIDExtension.count - 2), 0xBF, 0x89, 0x34])
        #expect(leaf.extensionValue("1.2.840.113635.100.8.7") != nil)
        let intermediate = try #require(OpenSSLCheck.X509Certificate(der: parts.certificateChain[1]))
        #expect(intermediate.signatureAlgorithm == "ecdsa-with-SHA384")
        #expect(intermediate.publicPoint.count == 97)
    }

    @Test("a counter mutation changes only the counter bytes, and the nonce still covers the mutated authData")
    func counterMutation() {
        let device = Fixtures.device()
        let key = device.generateKey()
        let valid = device.attestation(key, clientDataHash: clientDataHash)
        let mutated = device.attestation(key, clientDataHash: clientDataHash, options: .init { $0.counter = 1 })
        #expect(Array(mutated.authenticatorData[33..<37]) == [0, 0, 0, 1])
        #expect(Array(mutated.authenticatorData[37...]) == Array(valid.authenticatorData[37...]))
        #expect(Array(mutated.authenticatorData[..<33]) == Array(valid.authenticatorData[..<33]))
        #expect(mutated.nonce == SHA256.hash(mutated.authenticatorData + clientDataHash))
    }

    @Test("certifying another key puts that key in the leaf while authData keeps the attested key")
    func certifiedKeyMutation() throws {
        let device = Fixtures.device()
        let key = device.generateKey()
        let other = device.generateKey()
        let parts = device.attestation(key, clientDataHash: clientDataHash, options: .init { $0.certifiedKey = other })
        let leaf = try #require(OpenSSLCheck.X509Certificate(der: parts.certificateChain[0]))
        #expect(leaf.publicPoint == other.publicKey)
        #expect(Array(parts.authenticatorData[55..<87]) == key.keyID)
    }

    @Test("the nonce, receipt and trailing-bytes knobs change what they name")
    func otherKnobs() throws {
        let device = Fixtures.device()
        let key = device.generateKey()
        let wrongNonce = device.attestation(key, clientDataHash: clientDataHash, options: .init { $0.certificateNonce = .value([UInt8](repeating: 9, count: 32)) })
        let leaf = try #require(OpenSSLCheck.X509Certificate(der: wrongNonce.certificateChain[0]))
        #expect(leaf.extensionValue("1.2.840.113635.100.8.2") == [0x30, 0x24, 0xA1, 0x22, 0x04, 0x20] + [UInt8](repeating: 9, count: 32))
        let noNonce = device.attestation(key, clientDataHash: clientDataHash, options: .init { $0.certificateNonce = .omitted })
        #expect(OpenSSLCheck.X509Certificate(der: noNonce.certificateChain[0])?.extensionValue("1.2.840.113635.100.8.2") == nil)
        let noReceipt = device.attest(key, clientDataHash: clientDataHash, options: .init { $0.receipt = .omitted })
        #expect(CBORItem.decode(noReceipt)?["attStmt"]?.keys == ["x5c"])
        let trailing = device.attest(key, clientDataHash: clientDataHash, options: .init { $0.trailingBytes = [0x00] })
        #expect(CBORItem.decode(trailing) == nil)
        #expect(CBORItem.decode(Array(trailing.dropLast())) != nil)
    }
}

/// Lowercase hex, as Apple writes the keyId in the leaf's common name.
func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef")
    return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] })
}
