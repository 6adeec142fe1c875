/// The fields of an X.509 certificate read straight from its DER, without OpenSSL.
///
/// OpenSSL 3.0 spends far longer decoding a certificate (its public key goes through the provider decoders) than
/// verifying an ECDSA signature, so the hot path of the trust store reads what it needs here: the signed bytes,
/// the signature, the names, the validity window, the key and the extensions. Nothing read here is trusted until
/// the signature over `tbsCertificate` has verified.
public struct DERCertificate: Sendable {
    /// One extension.
    public struct Extension: Sendable {
        /// The OBJECT IDENTIFIER's contents, compared as bytes on the hot path.
        public var oidContents: ArraySlice<UInt8>
        public var critical: Bool
        /// The contents of `extnValue`.
        public var value: ArraySlice<UInt8>
        /// The identifier, dotted.
        public var oid: String { DERReader.dotted(oidContents) ?? "" }
    }

    /// The certificate as encoded.
    public let encoded: [UInt8]
    /// `tbsCertificate`, header included: the bytes the issuer signed.
    public let tbsCertificate: ArraySlice<UInt8>
    /// `signatureAlgorithm`'s OBJECT IDENTIFIER contents.
    public let signatureAlgorithmContents: ArraySlice<UInt8>
    /// `signatureAlgorithm`, dotted.
    public var signatureAlgorithm: String { DERReader.dotted(signatureAlgorithmContents) ?? "" }
    /// The signature (the BIT STRING's bytes: DER ECDSA for the algorithms this project meets).
    public let signature: ArraySlice<UInt8>
    /// The serial number's INTEGER contents.
    public let serialNumber: ArraySlice<UInt8>
    /// The issuer Name, DER.
    public let issuer: ArraySlice<UInt8>
    /// The subject Name, DER.
    public let subject: ArraySlice<UInt8>
    /// Validity, Unix seconds.
    public let notBefore: Int64
    public let notAfter: Int64
    /// The public key algorithm and its parameter (the curve for EC keys), as OBJECT IDENTIFIER contents.
    public let publicKeyAlgorithmContents: ArraySlice<UInt8>
    public let publicKeyParameterContents: ArraySlice<UInt8>?
    /// The public key algorithm and its parameter, dotted.
    public var publicKeyAlgorithm: String { DERReader.dotted(publicKeyAlgorithmContents) ?? "" }
    public var publicKeyParameter: String? { publicKeyParameterContents.flatMap { DERReader.dotted($0) } }

    /// True when the key is an uncompressed P-256 point (id-ecPublicKey, prime256v1, 65 bytes from 04).
    public var hasUncompressedP256Key: Bool {
        publicKeyAlgorithmContents.elementsEqual(Self.ecPublicKey) && publicKeyParameterContents?.elementsEqual(Self.prime256v1) == true
            && publicKey.count == 65 && publicKey.first == 0x04
    }

    /// id-ecPublicKey (1.2.840.10045.2.1) and prime256v1 (1.2.840.10045.3.1.7).
    static let ecPublicKey: [UInt8] = [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01]
    static let prime256v1: [UInt8] = [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07]
    /// The subjectPublicKey bytes: the X9.62 point for EC keys.
    public let publicKey: ArraySlice<UInt8>
    /// The extensions, in certificate order.
    public let extensions: [Extension]

    /// Reads `der`; nil when it is not a well-formed v3 certificate.
    public init?(_ der: [UInt8]) {
        encoded = der
        var outer = DERReader(der[...])
        guard let certificate = outer.read(tag: 0x30), outer.isAtEnd else { return nil }
        var body = DERReader(certificate)
        guard let tbs = body.readElement(), tbs.tag == 0x30,
              let algorithm = body.read(tag: 0x30), let bits = body.read(tag: 0x03), body.isAtEnd,
              bits.first == 0
        else { return nil }
        var algorithmReader = DERReader(algorithm)
        guard let signatureOID = algorithmReader.read(tag: 0x06), !signatureOID.isEmpty else { return nil }
        tbsCertificate = tbs.encoded
        signatureAlgorithmContents = signatureOID
        signature = bits.dropFirst()

        var fields = DERReader(tbs.contents)
        if fields.nextTag == 0xA0 { _ = fields.readElement() }  // version [0]
        guard let serial = fields.read(tag: 0x02),
              let innerAlgorithm = fields.read(tag: 0x30), innerAlgorithm.elementsEqual(algorithm),
              let issuerName = fields.readElement(), issuerName.tag == 0x30,
              let validity = fields.read(tag: 0x30),
              let subjectName = fields.readElement(), subjectName.tag == 0x30,
              let spki = fields.read(tag: 0x30)
        else { return nil }
        serialNumber = serial
        issuer = issuerName.encoded
        subject = subjectName.encoded

        var times = DERReader(validity)
        guard let start = times.readElement().flatMap(Self.time), let end = times.readElement().flatMap(Self.time),
              times.isAtEnd
        else { return nil }
        notBefore = start
        notAfter = end

        var keyInfo = DERReader(spki)
        guard let keyAlgorithm = keyInfo.read(tag: 0x30), let keyBits = keyInfo.read(tag: 0x03), keyInfo.isAtEnd,
              keyBits.first == 0
        else { return nil }
        var keyAlgorithmReader = DERReader(keyAlgorithm)
        guard let keyOID = keyAlgorithmReader.read(tag: 0x06), !keyOID.isEmpty else { return nil }
        publicKeyAlgorithmContents = keyOID
        publicKeyParameterContents = keyAlgorithmReader.nextTag == 0x06 ? keyAlgorithmReader.read(tag: 0x06) : nil
        publicKey = keyBits.dropFirst()

        // Unique identifiers [1] and [2] may precede the extensions [3]. A malformed one ends the parse: skipping
        // it would not move the reader, and the loop would never end.
        while let tag = fields.nextTag, tag == 0x81 || tag == 0x82 || tag == 0xA1 || tag == 0xA2 {
            guard fields.readElement() != nil else { return nil }
        }
        var parsed: [Extension] = []
        if fields.nextTag == 0xA3 {
            guard let wrapper = fields.read(tag: 0xA3) else { return nil }
            var wrapperReader = DERReader(wrapper)
            guard let list = wrapperReader.read(tag: 0x30), wrapperReader.isAtEnd else { return nil }
            var listReader = DERReader(list)
            while !listReader.isAtEnd {
                guard let item = listReader.read(tag: 0x30) else { return nil }
                var itemReader = DERReader(item)
                guard let oid = itemReader.read(tag: 0x06), !oid.isEmpty else { return nil }
                var critical = false
                if itemReader.nextTag == 0x01 {
                    guard let flag = itemReader.read(tag: 0x01), flag.count == 1 else { return nil }
                    critical = flag.first! != 0
                }
                guard let value = itemReader.read(tag: 0x04), itemReader.isAtEnd else { return nil }
                parsed.append(Extension(oidContents: oid, critical: critical, value: value))
            }
        }
        guard fields.isAtEnd else { return nil }
        extensions = parsed
    }

    /// The `extnValue` contents of the extension `oid` (dotted), or nil when absent.
    public func extensionValue(oid: String) -> ArraySlice<UInt8>? {
        guard let contents = DERReader.objectIdentifierContents(oid) else { return nil }
        return extensions.first { $0.oidContents.elementsEqual(contents) }?.value
    }

    /// The issuer Name (DER) and serial number (INTEGER contents) of `der`, read without the rest: how CMS names
    /// its signer.
    public static func issuerAndSerialNumber(_ der: [UInt8]) -> (issuer: ArraySlice<UInt8>, serialNumber: ArraySlice<UInt8>)? {
        var outer = DERReader(der[...])
        guard let certificate = outer.read(tag: 0x30) else { return nil }
        var body = DERReader(certificate)
        guard let tbs = body.read(tag: 0x30) else { return nil }
        var fields = DERReader(tbs)
        if fields.nextTag == 0xA0 { _ = fields.readElement() }
        guard let serial = fields.read(tag: 0x02), fields.read(tag: 0x30) != nil,
              let issuer = fields.readElement(), issuer.tag == 0x30
        else { return nil }
        return (issuer.encoded, serial)
    }

    /// True when `time` (Unix seconds) is inside the validity window, read as OpenSSL does (notAfter exclusive).
    public func isValid(at time: Int64) -> Bool { notBefore <= time && time < notAfter }

    /// UTCTime (`YYMMDDHHMMSSZ`, years 1950-2049) or GeneralizedTime (`YYYYMMDDHHMMSSZ`), as RFC 5280 requires them.
    static func time(_ element: DERReader.Element) -> Int64? {
        let text = Array(element.contents)
        let yearDigits: Int
        switch (element.tag, text.count) {
        case (0x17, 13): yearDigits = 2
        case (0x18, 15): yearDigits = 4
        default: return nil
        }
        guard text.last == UInt8(ascii: "Z"), text.dropLast().allSatisfy({ (48...57).contains($0) }) else { return nil }
        let digits = text.dropLast().map { Int($0 - 48) }
        func number(_ start: Int, _ count: Int) -> Int { digits[start..<start + count].reduce(0) { $0 * 10 + $1 } }
        var year = number(0, yearDigits)
        if yearDigits == 2 { year += year < 50 ? 2000 : 1900 }
        let month = number(yearDigits, 2), day = number(yearDigits + 2, 2)
        let hour = number(yearDigits + 4, 2), minute = number(yearDigits + 6, 2), second = number(yearDigits + 8, 2)
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60 else { return nil }
        return CivilCalendar.days(year: year, month: month, day: day) * 86_400
            + Int64(hour * 3600 + minute * 60 + second)
    }
}

/// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's algorithm, exact).
enum CivilCalendar {
    static func days(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = Int64((month + 9) % 12)
        let doy = (153 * mp + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
