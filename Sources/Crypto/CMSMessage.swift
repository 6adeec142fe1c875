/// The common shape of a CMS SignedData (RFC 5652) read from BER without OpenSSL: what `SignedData` needs to
/// check one signer's signature (named by issuer and serial number, SHA-256, ECDSA P-256, with or without signed
/// attributes).
///
/// Anything outside that shape makes the initializer return nil, and the caller falls back to OpenSSL.
struct CMSMessage {
    let signedData: SignedData
    private let contentType: ArraySlice<UInt8>
    /// The DER the signature covers when there are signed attributes; nil when it covers the content itself.
    private let signedAttributes: [UInt8]?
    private let attributes: [(oid: String, values: [BERReader.Element])]?
    private let signature: ArraySlice<UInt8>

    static let signedDataOID = "1.2.840.113549.1.7.2"
    static let sha256OID = "2.16.840.1.101.3.4.2.1"
    static let contentTypeAttribute = "1.2.840.113549.1.9.3"
    static let messageDigestAttribute = "1.2.840.113549.1.9.4"
    static let signatureAlgorithms: Set<String> = ["1.2.840.10045.4.3.2", "1.2.840.10045.2.1"]
    /// Receipt signers are few and long-lived: their keys are worth keeping.
    static let signerKeys = PublicKeyCache(capacity: 16)

    init?(_ encoded: [UInt8]) {
        var top = BERReader(encoded[...])
        guard let contentInfo = top.read(tag: 0x30), top.isAtEnd,
              let info = BERReader.children(of: contentInfo), info.count == 2,
              info[0].tag == 0x06, DERReader.dotted(info[0].contents) == Self.signedDataOID, info[1].tag == 0xA0,
              let wrapped = BERReader.children(of: info[1]), wrapped.count == 1, wrapped[0].tag == 0x30,
              let fields = BERReader.children(of: wrapped[0]), fields.count >= 4
        else { return nil }

        // version, digestAlgorithms, encapContentInfo, [0] certificates, [1] crls, signerInfos
        guard fields[0].tag == 0x02, fields[1].tag == 0x31, fields[2].tag == 0x30,
              let encapsulated = BERReader.children(of: fields[2]), encapsulated.count == 2,
              encapsulated[0].tag == 0x06, encapsulated[1].tag == 0xA0,
              let eContent = BERReader.children(of: encapsulated[1]), eContent.count == 1,
              let content = BERReader.octets(of: eContent[0])
        else { return nil }
        var certificates: [[UInt8]] = []
        var index = 3
        if fields[index].tag == 0xA0 {
            guard let list = BERReader.children(of: fields[index]) else { return nil }
            for certificate in list {
                guard certificate.tag == 0x30 else { return nil }
                certificates.append(Array(certificate.encoded))
            }
            index += 1
        }
        if index < fields.count, fields[index].tag == 0xA1 { index += 1 }
        guard index == fields.count - 1, fields[index].tag == 0x31,
              let signers = BERReader.children(of: fields[index]), signers.count == 1, signers[0].tag == 0x30,
              let signer = BERReader.children(of: signers[0])
        else { return nil }

        // SignerInfo: version, sid (issuerAndSerialNumber), digestAlgorithm, [0] signedAttrs (optional; Apple's
        // receipts have none), signatureAlgorithm, signature, [1] unsignedAttrs (optional).
        guard signer.count >= 5, signer[1].tag == 0x30, let sid = BERReader.children(of: signer[1]), sid.count == 2,
              sid[1].tag == 0x02, Self.algorithm(signer[2]) == Self.sha256OID
        else { return nil }
        var next = 3
        var attributes: [(oid: String, values: [BERReader.Element])]? = nil
        var signedBytes: [UInt8]? = nil
        if signer[next].tag == 0xA0 {
            // DER only: the signature covers the attributes re-encoded with the SET OF tag, which is only the
            // same bytes when they were definite-length.
            let encoded = signer[next].encoded
            guard encoded[encoded.startIndex + 1] != 0x80, let list = BERReader.children(of: signer[next]) else {
                return nil
            }
            var parsed: [(oid: String, values: [BERReader.Element])] = []
            for attribute in list {
                guard let parts = BERReader.children(of: attribute), parts.count == 2, parts[0].tag == 0x06,
                      let oid = DERReader.dotted(parts[0].contents), parts[1].tag == 0x31,
                      let values = BERReader.children(of: parts[1])
                else { return nil }
                parsed.append((oid, values))
            }
            attributes = parsed
            signedBytes = [0x31] + encoded.dropFirst()
            next += 1
        }
        guard next + 1 < signer.count, let algorithm = Self.algorithm(signer[next]),
              Self.signatureAlgorithms.contains(algorithm), signer[next + 1].tag == 0x04,
              signer.count == next + 2 || (signer.count == next + 3 && signer[next + 2].tag == 0xA1)
        else { return nil }

        // The signer is the embedded certificate with the sid's issuer and serial number.
        guard let signerIndex = certificates.firstIndex(where: { der in
            guard let name = DERCertificate.issuerAndSerialNumber(der) else { return false }
            return name.serialNumber.elementsEqual(sid[1].contents) && name.issuer.elementsEqual(sid[0].encoded)
        }) else { return nil }

        // The signature covers the DER of the signed attributes with the SET OF tag in place of [0] IMPLICIT.
        self.signedAttributes = signedBytes
        self.attributes = attributes
        self.signature = signer[next + 1].contents
        self.contentType = encapsulated[0].contents
        self.signedData = SignedData(content: content, certificatesDER: certificates, signerIndex: signerIndex)
    }

    /// Checks the signer's ECDSA P-256 signature: over the content itself, or (with signed attributes) over the
    /// attributes, after checking that their content type and message digest match the content.
    func hasValidSignature() -> Bool {
        guard let certificate = DERCertificate(signedData.signerDER), certificate.hasUncompressedP256Key else { return false }
        let point = Array(certificate.publicKey)
        guard let signedAttributes, let attributes else {
            return (try? Self.signerKeys.isValidSignature(signature, for: signedData.content, p256UncompressedPoint: point)) ?? false
        }
        func single(_ oid: String) -> BERReader.Element? {
            let matches = attributes.filter { $0.oid == oid }
            guard matches.count == 1, matches[0].values.count == 1 else { return nil }
            return matches[0].values[0]
        }
        guard let type = single(Self.contentTypeAttribute), type.tag == 0x06, type.contents.elementsEqual(contentType),
              let digest = single(Self.messageDigestAttribute), digest.tag == 0x04,
              ConstantTime.equals(digest.contents, SHA256.hash(signedData.content))
        else { return false }
        return (try? Self.signerKeys.isValidSignature(signature, for: signedAttributes, p256UncompressedPoint: point)) ?? false
    }

    private static func algorithm(_ element: BERReader.Element) -> String? {
        guard element.tag == 0x30, let parts = BERReader.children(of: element), let first = parts.first,
              first.tag == 0x06
        else { return nil }
        return DERReader.dotted(first.contents)
    }
}
