internal import COpenSSL

/// The fields `DERCertificate` reads, as OpenSSL decoded them: what the differential tests compare the strict DER
/// reader against.
extension Certificate {
    /// One extension as OpenSSL holds it.
    public struct DecodedExtension: Sendable, Equatable {
        /// The OBJECT IDENTIFIER's contents.
        public var oidContents: [UInt8]
        public var critical: Bool
        /// The contents of `extnValue`.
        public var value: [UInt8]

        public init(oidContents: [UInt8], critical: Bool, value: [UInt8]) {
            self.oidContents = oidContents
            self.critical = critical
            self.value = value
        }
    }

    /// The issuer Name, DER (as read: OpenSSL keeps a name's original encoding).
    public var issuerDER: [UInt8] { Self.encoded(X509_get_issuer_name(pointer)) }
    /// The subject Name, DER.
    public var subjectDER: [UInt8] { Self.encoded(X509_get_subject_name(pointer)) }

    /// The serial number's magnitude, big-endian, without leading zeros (empty for zero).
    public var serialNumberMagnitude: [UInt8] {
        guard let serial = X509_get0_serialNumber(pointer) else { return [] }
        return Array(Self.bytes(serial).drop { $0 == 0 })
    }

    /// The subjectPublicKey BIT STRING's bytes.
    public var subjectPublicKeyBits: [UInt8] {
        guard let bits = X509_get0_pubkey_bitstr(pointer) else { return [] }
        return Self.bytes(bits)
    }

    /// The signatureValue BIT STRING's bytes, and signatureAlgorithm's OBJECT IDENTIFIER contents.
    public var signatureFields: (signature: [UInt8], algorithmContents: [UInt8]) {
        var signature: UnsafePointer<ASN1_BIT_STRING>? = nil
        var algorithm: UnsafePointer<X509_ALGOR>? = nil
        X509_get0_signature(&signature, &algorithm, pointer)
        var object: OpaquePointer? = nil
        X509_ALGOR_get0(&object, nil, nil, algorithm)
        return (signature.map { Self.bytes($0) } ?? [], object.map(Self.contents) ?? [])
    }

    /// Every extension, in certificate order.
    public var decodedExtensions: [DecodedExtension] {
        (0..<max(0, X509_get_ext_count(pointer))).compactMap { index -> DecodedExtension? in
            guard let ext = X509_get_ext(pointer, index), let object = X509_EXTENSION_get_object(ext),
                  let value = X509_EXTENSION_get_data(ext)
            else { return nil }
            return DecodedExtension(
                oidContents: Self.contents(object), critical: X509_EXTENSION_get_critical(ext) != 0,
                value: Self.bytes(value))
        }
    }

    private static func encoded(_ name: OpaquePointer?) -> [UInt8] {
        guard let name else { return [] }
        var output: UnsafeMutablePointer<UInt8>? = nil
        let count = i2d_X509_NAME(name, &output)
        guard count > 0, let output else { return [] }
        defer { CRYPTO_free(output, #fileID, #line) }
        return Array(UnsafeBufferPointer(start: output, count: Int(count)))
    }

    private static func bytes(_ string: UnsafePointer<ASN1_STRING>) -> [UInt8] {
        guard let data = ASN1_STRING_get0_data(string) else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(ASN1_STRING_length(string))))
    }

    private static func contents(_ object: OpaquePointer) -> [UInt8] {
        guard let data = OBJ_get0_data(object) else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: OBJ_length(object)))
    }
}

extension DERCertificate {
    /// The fields on which this reading and OpenSSL's reading of the same certificate differ, by name: empty when
    /// they agree on every field the short path reads. For the differential test and fuzz target.
    @_spi(Testing) public func disagreements(with openSSL: Certificate) -> [String] {
        var fields: [String] = []
        if Array(serialNumber.drop { $0 == 0 }) != openSSL.serialNumberMagnitude { fields.append("serialNumber") }
        if Array(issuer) != openSSL.issuerDER { fields.append("issuer") }
        if Array(subject) != openSSL.subjectDER { fields.append("subject") }
        if notBefore != openSSL.notBefore { fields.append("notBefore") }
        if notAfter != openSSL.notAfter { fields.append("notAfter") }
        if Array(publicKey) != openSSL.subjectPublicKeyBits { fields.append("publicKey") }
        let signatureFields = openSSL.signatureFields
        if Array(signature) != signatureFields.signature { fields.append("signature") }
        if Array(signatureAlgorithmContents) != signatureFields.algorithmContents { fields.append("signatureAlgorithm") }
        let decoded = extensions.map {
            Certificate.DecodedExtension(oidContents: Array($0.oidContents), critical: $0.critical, value: Array($0.value))
        }
        if decoded != openSSL.decodedExtensions { fields.append("extensions") }
        return fields
    }
}
