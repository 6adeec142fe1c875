import Crypto
import Testing

/// Crypto's issuing side (EC keys, certificates, CMS signing), which the simulator builds its CAs and receipts on.
@Suite("Issuing keys, certificates and signed data")
struct CertificateIssuingTests {
    static let now: Int64 = 1_780_000_000

    /// A root (P-384, self-signed with SHA-384) and a leaf it issued (P-256, SHA-256).
    struct Chain {
        let rootKey: ECPrivateKey
        let root: Certificate
        let leafKey: ECPrivateKey
        let leaf: Certificate
    }

    static func chain() throws -> Chain {
        let rootKey = try ECPrivateKey.generate(.p384)
        let root = try CertificateBuilder(
            subject: [("CN", "Test Root"), ("O", "attestd")], subjectKey: rootKey, notBefore: now - 3600,
            notAfter: now + 86_400,
            extensions: [
                .init(oid: "2.5.29.19", critical: true, value: [0x30, 0x03, 0x01, 0x01, 0xFF]),
                .init(oid: "2.5.29.15", critical: true, value: [0x03, 0x02, 0x01, 0x06]),
            ],
            signatureDigest: .sha384
        ).issue()
        let leafKey = try ECPrivateKey.generate(.p256)
        let leaf = try CertificateBuilder(
            subject: [("CN", "Test Leaf")], subjectKey: leafKey, notBefore: now - 60, notAfter: now + 3600,
            extensions: [.init(oid: "1.2.840.113635.100.8.2", critical: false, value: [0x04, 0x02, 0xAB, 0xCD])]
        ).issue(by: (certificate: root, key: rootKey))
        return Chain(rootKey: rootKey, root: root, leafKey: leafKey, leaf: leaf)
    }

    @Test("an issued certificate carries its subject, issuer, validity, extensions and key")
    func fields() throws {
        let chain = try Self.chain()
        let leaf = try Certificate(derEncoded: chain.leaf.derEncoded)
        #expect(leaf.subject.contains("CN=Test Leaf"))
        #expect(leaf.issuer.contains("CN=Test Root") && leaf.issuer.contains("O=attestd"))
        #expect(leaf.notBefore == Self.now - 60 && leaf.notAfter == Self.now + 3600)
        #expect(leaf.extensionValue(oid: "1.2.840.113635.100.8.2") == [0x04, 0x02, 0xAB, 0xCD])
        #expect(leaf.publicKey?.ecPoint == chain.leafKey.publicPoint)
        #expect(chain.leafKey.publicPoint.count == 65 && chain.rootKey.publicPoint.count == 97)
        #expect(chain.leaf.serialNumberHex != chain.root.serialNumberHex)
    }

    @Test("a chain issued under a root verifies against that root, and not against another")
    func chainVerifies() throws {
        let chain = try Self.chain()
        let trusted = try TrustStore(anchorsDER: [chain.root.derEncoded])
        try trusted.verify(leafDER: chain.leaf.derEncoded, intermediatesDER: [], at: Self.now)
        let stranger = try TrustStore(anchorsDER: [try Self.chain().root.derEncoded])
        #expect(throws: CryptoError.self) {
            try stranger.verify(leafDER: chain.leaf.derEncoded, intermediatesDER: [], at: Self.now)
        }
    }

    @Test("an EC key signs with either digest, its public key verifies, and it survives PEM", arguments: [
        (ECPrivateKey.Curve.p256, SignatureDigest.sha256), (.p384, .sha384), (.p384, .sha256),
    ])
    func keys(curve: ECPrivateKey.Curve, digest: SignatureDigest) throws {
        let key = try ECPrivateKey.generate(curve)
        let message = Array("signed by a simulated CA".utf8)
        let signature = try key.signature(message, digest: digest)
        #expect(try key.publicKey().isValidSignature(signature, for: message, digest: digest))
        #expect(try !key.publicKey().isValidSignature(signature, for: message + [0], digest: digest))
        let read = try ECPrivateKey.read(pem: key.pem())
        #expect(read.curve == curve && read.publicPoint == key.publicPoint)
        #expect(read.subjectPublicKeyInfoDER == key.subjectPublicKeyInfoDER)
    }

    @Test("PEM that holds no P-256 or P-384 key is refused")
    func foreignKeys() throws {
        #expect(throws: CryptoError.self) { try ECPrivateKey.read(pem: "not PEM") }
        let rsa = try PrivateKey.generate(.rs256).pem()
        #expect(throws: CryptoError(.unsupportedKey, "")) { try ECPrivateKey.read(pem: rsa) }
    }

    @Test("a certificate survives PEM and knows its own key from another")
    func certificatePEM() throws {
        let chain = try Self.chain()
        let read = try Certificate(pemEncoded: chain.leaf.pem)
        #expect(read.derEncoded == chain.leaf.derEncoded)
        #expect(read.isCertifying(chain.leafKey))
        #expect(!read.isCertifying(chain.rootKey))
        #expect(throws: CryptoError.self) { try Certificate(pemEncoded: "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n") }
    }

    @Test("signed data verifies, carries its content and embeds the certificates, in DER and streamed BER",
          arguments: [SignedData.Encoding.der, .streamedBER])
    func signedData(encoding: SignedData.Encoding) throws {
        let chain = try Self.chain()
        let content = [UInt8](repeating: 0x5A, count: 2500)
        let encoded = try SignedData.sign(
            content, signer: chain.leaf, key: chain.leafKey, certificates: [chain.root], encoding: encoding)
        // Streamed BER opens the ContentInfo with an indefinite length (0x30 0x80).
        #expect((encoded[1] == 0x80) == (encoding == .streamedBER))
        let verified = try SignedData.verifyingSignature(encoded)
        #expect(verified.content == content)
        #expect(verified.signerDER == chain.leaf.derEncoded)
        #expect(Set(verified.certificatesDER) == [chain.leaf.derEncoded, chain.root.derEncoded])
        // One byte changed inside the content (a run of 0x5A no certificate or signature holds).
        var forged = encoded
        let run = try #require(forged.indices.first { start in
            start + 100 <= forged.count && forged[start..<start + 100].allSatisfy { $0 == 0x5A }
        })
        forged[run + 50] ^= 1
        #expect(throws: CryptoError.self) { try SignedData.verifyingSignature(forged) }
    }
}
