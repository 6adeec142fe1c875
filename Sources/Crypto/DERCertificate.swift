import Basics

/// The fields of an X.509 certificate read straight from its DER, without OpenSSL.
///
/// OpenSSL 3.0 spends far longer decoding a certificate (its public key goes through the provider decoders) than
/// verifying an ECDSA signature, so the hot path of the trust store reads what it needs here: the signed bytes,
/// the signature, the names, the validity window, the key and the extensions. Nothing read here is trusted until
/// the signature over `tbsCertificate` has verified. It reads strict DER only, refusing whatever OpenSSL's own parser
/// would refuse and more (see `init(parsing:)`), so a certificate never passes here that OpenSSL would not read.
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

    /// Reads `der`; nil when it is not a strict DER v3 certificate (see `init(parsing:)`).
    public init?(_ der: [UInt8]) {
        guard let certificate = try? DERCertificate(parsing: der) else { return nil }
        self = certificate
    }

    /// Reads `der`, which must be one X.509 v3 certificate in DER and nothing after it; throws
    /// `CryptoError.malformedCertificate`, naming the field and the rule, for anything else.
    ///
    /// The rules are DER's and RFC 5280's, and every one of them is at least as strict as OpenSSL's `d2i_X509`, so
    /// what this accepts OpenSSL accepts too (a differential test holds it to that): shortest-form lengths; INTEGERs
    /// without a redundant leading octet; version v3, written out; BIT STRINGs of whole bytes; an extension's
    /// `critical` written only when TRUE, as 0xFF; no extension twice; names of UTF8String, PrintableString or
    /// IA5String values; times as `YYMMDDHHMMSSZ` (UTCTime, before 2050) or `YYYYMMDDHHMMSSZ` (GeneralizedTime,
    /// from 2050) that name a real second.
    public init(parsing der: [UInt8]) throws(CryptoError) {
        encoded = der
        var outer = FieldReader(der[...])
        let certificate = try outer.read(0x30, "Certificate")
        try outer.end("the certificate")
        var body = FieldReader(certificate.contents)
        let tbs = try body.read(0x30, "tbsCertificate")
        let algorithm = try body.read(0x30, "signatureAlgorithm")
        let bits = try body.read(0x03, "signatureValue")
        try body.end("Certificate")
        signatureAlgorithmContents = try Self.algorithmIdentifier(algorithm.contents, "signatureAlgorithm").oid
        tbsCertificate = tbs.encoded
        signature = try Self.wholeBytes(bits.contents, "signatureValue")

        var fields = FieldReader(tbs.contents)
        try Self.version(try fields.read(0xA0, "version"))
        serialNumber = try Self.serialNumber(try fields.read(0x02, "serialNumber").contents)
        let innerAlgorithm = try fields.read(0x30, "signature")
        guard innerAlgorithm.encoded.elementsEqual(algorithm.encoded) else {
            throw Self.refusal("signature: not the certificate's signatureAlgorithm")
        }
        issuer = try Self.name(try fields.read(0x30, "issuer"), "issuer")
        var times = FieldReader(try fields.read(0x30, "validity").contents)
        notBefore = try Self.time(try times.readAny("notBefore"), "notBefore")
        notAfter = try Self.time(try times.readAny("notAfter"), "notAfter")
        try times.end("validity")
        subject = try Self.name(try fields.read(0x30, "subject"), "subject")

        var keyInfo = FieldReader(try fields.read(0x30, "subjectPublicKeyInfo").contents)
        let keyAlgorithm = try Self.algorithmIdentifier(
            try keyInfo.read(0x30, "subjectPublicKeyInfo.algorithm").contents, "subjectPublicKeyInfo.algorithm")
        publicKeyAlgorithmContents = keyAlgorithm.oid
        publicKeyParameterContents = keyAlgorithm.parameter.flatMap { $0.tag == 0x06 ? $0.contents : nil }
        publicKey = try Self.wholeBytes(
            try keyInfo.read(0x03, "subjectPublicKey").contents, "subjectPublicKeyInfo.subjectPublicKey")
        try keyInfo.end("subjectPublicKeyInfo")

        // Unique identifiers: [1] then [2], each at most once, primitive (DER) BIT STRINGs.
        for (tag, field) in [(UInt8(0x81), "issuerUniqueID"), (0x82, "subjectUniqueID")] where fields.nextTag == tag {
            try Self.bitString(try fields.read(tag, field).contents, field)
        }
        var parsed: [Extension] = []
        if fields.nextTag == 0xA3 {
            var wrapper = FieldReader(try fields.read(0xA3, "extensions").contents)
            var list = FieldReader(try wrapper.read(0x30, "extensions").contents)
            try wrapper.end("extensions")
            guard !list.isAtEnd else { throw Self.refusal("extensions: present but empty") }
            while !list.isAtEnd {
                let field = "extensions[\(parsed.count)]"
                var item = FieldReader(try list.read(0x30, field).contents)
                let oid = try Self.objectIdentifier(try item.read(0x06, "\(field).extnID").contents, "\(field).extnID")
                guard !parsed.contains(where: { $0.oidContents.elementsEqual(oid) }) else {
                    throw Self.refusal("\(field): a second extension \(DERReader.dotted(oid) ?? "?")")
                }
                var critical = false
                if item.nextTag == 0x01 {
                    let flag = try item.read(0x01, "\(field).critical").contents
                    // DER writes a DEFAULT FALSE field only when it is TRUE, and TRUE only as 0xFF.
                    guard flag.count == 1, flag.first == 0xff else {
                        throw Self.refusal("\(field).critical: \(Self.hex(flag)), not the DER TRUE (ff)")
                    }
                    critical = true
                }
                let value = try item.read(0x04, "\(field).extnValue").contents
                try item.end(field)
                parsed.append(Extension(oidContents: oid, critical: critical, value: value))
            }
        }
        try fields.end("tbsCertificate")
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

    /// UTCTime (`YYMMDDHHMMSSZ`, years 1950-2049) or GeneralizedTime (`YYYYMMDDHHMMSSZ`, years 2050-9999), as
    /// RFC 5280 §4.1.2.5 requires them, naming a second that exists (no 31 April, no 29 February outside leap years).
    static func time(_ element: DERReader.Element, _ field: String) throws(CryptoError) -> Int64 {
        let text = Array(element.contents)
        let yearDigits: Int
        switch element.tag {
        case 0x17: yearDigits = 2
        case 0x18: yearDigits = 4
        default: throw refusal("\(field): tag \(hex([element.tag])), not UTCTime (17) or GeneralizedTime (18)")
        }
        let kind = yearDigits == 2 ? "UTCTime" : "GeneralizedTime"
        guard text.count == yearDigits + 11, text.last == UInt8(ascii: "Z"),
              text.dropLast().allSatisfy({ (48...57).contains($0) })
        else {
            let shape = yearDigits == 2 ? "YYMMDDHHMMSSZ" : "YYYYMMDDHHMMSSZ"
            throw refusal("\(field): \(kind) \"\(String(decoding: text, as: UTF8.self))\" is not \(shape)")
        }
        let digits = text.dropLast().map { Int($0 - 48) }
        func number(_ start: Int, _ count: Int) -> Int { digits[start..<start + count].reduce(0) { $0 * 10 + $1 } }
        var year = number(0, yearDigits)
        if yearDigits == 2 { year += year < 50 ? 2000 : 1900 }
        guard yearDigits == 2 || year >= 2050 else {
            throw refusal("\(field): GeneralizedTime for \(year), which RFC 5280 writes as UTCTime")
        }
        let month = number(yearDigits, 2), day = number(yearDigits + 2, 2)
        let hour = number(yearDigits + 4, 2), minute = number(yearDigits + 6, 2), second = number(yearDigits + 8, 2)
        guard let date = CivilDate(year: Int64(year), month: Int64(month), day: Int64(day)),
              hour < 24, minute < 60, second < 60
        else { throw refusal("\(field): \(kind) \"\(String(decoding: text, as: UTF8.self))\" is not a time") }
        return date.daysSince1970 * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    // MARK: Fields

    /// `version [0] EXPLICIT INTEGER`: v3 (2), the only version App Attest and receipts use and the only one
    /// with extensions.
    private static func version(_ element: DERReader.Element) throws(CryptoError) {
        var reader = FieldReader(element.contents)
        let integer = try reader.read(0x02, "version").contents
        try reader.end("version")
        guard DERReader.isMinimalInteger(integer) else { throw refusal("version: INTEGER \(hex(integer)) is not minimal") }
        guard integer.elementsEqual([2]) else { throw refusal("version: \(hex(integer)), not v3 (02)") }
    }

    /// `CertificateSerialNumber`: a minimal, non-negative INTEGER (RFC 5280 §4.1.2.2 asks for a positive one).
    private static func serialNumber(_ integer: ArraySlice<UInt8>) throws(CryptoError) -> ArraySlice<UInt8> {
        guard DERReader.isMinimalInteger(integer) else {
            throw refusal("serialNumber: INTEGER \(hex(integer.prefix(4))) is not minimal")
        }
        guard integer.first! & 0x80 == 0 else { throw refusal("serialNumber: negative") }
        return integer
    }

    /// `AlgorithmIdentifier`: an OBJECT IDENTIFIER and a parameter that is absent, NULL or an OBJECT IDENTIFIER (a
    /// named curve): the shapes App Attest's and receipts' algorithms take.
    private static func algorithmIdentifier(
        _ contents: ArraySlice<UInt8>, _ field: String
    ) throws(CryptoError) -> (oid: ArraySlice<UInt8>, parameter: DERReader.Element?) {
        var reader = FieldReader(contents)
        let oid = try objectIdentifier(try reader.read(0x06, "\(field).algorithm").contents, "\(field).algorithm")
        var parameter: DERReader.Element? = nil
        if !reader.isAtEnd {
            let element = try reader.readAny("\(field).parameters")
            switch element.tag {
            case 0x05 where element.contents.isEmpty: break
            case 0x06: _ = try objectIdentifier(element.contents, "\(field).parameters")
            default: throw refusal("\(field).parameters: tag \(hex([element.tag])), not NULL or an OBJECT IDENTIFIER")
            }
            parameter = element
        }
        try reader.end(field)
        return (oid, parameter)
    }

    private static func objectIdentifier(_ contents: ArraySlice<UInt8>, _ field: String) throws(CryptoError) -> ArraySlice<UInt8> {
        guard DERReader.isValidObjectIdentifier(contents) else {
            throw refusal("\(field): \(hex(contents.prefix(12))) is not an OBJECT IDENTIFIER")
        }
        return contents
    }

    /// A BIT STRING's contents: the unused-bits octet (0-7, 0 when empty) and bits, unused ones zero.
    private static func bitString(_ contents: ArraySlice<UInt8>, _ field: String) throws(CryptoError) {
        guard let unused = contents.first, unused < 8, contents.count > 1 || unused == 0,
              contents.count == 1 || contents.last! & UInt8((1 << unused) - 1) == 0
        else { throw refusal("\(field): not a DER BIT STRING") }
    }

    /// A BIT STRING that holds whole bytes (a signature, a key): its bytes after the unused-bits octet 0.
    private static func wholeBytes(_ contents: ArraySlice<UInt8>, _ field: String) throws(CryptoError) -> ArraySlice<UInt8> {
        guard let unused = contents.first else { throw refusal("\(field): an empty BIT STRING") }
        guard unused == 0 else { throw refusal("\(field): BIT STRING with \(unused) unused bits, not whole bytes") }
        return contents.dropFirst()
    }

    /// `Name`: a SEQUENCE of non-empty SETs of `{ type OBJECT IDENTIFIER, value }`, each value a UTF8String (valid
    /// UTF-8), PrintableString (its alphabet) or IA5String (ASCII); returns its whole encoding.
    private static func name(_ element: DERReader.Element, _ field: String) throws(CryptoError) -> ArraySlice<UInt8> {
        var rdns = FieldReader(element.contents)
        var index = 0
        while !rdns.isAtEnd {
            let rdnField = "\(field)[\(index)]"
            var attributes = FieldReader(try rdns.read(0x31, rdnField).contents)
            guard !attributes.isAtEnd else { throw refusal("\(rdnField): an empty RelativeDistinguishedName") }
            while !attributes.isAtEnd {
                var attribute = FieldReader(try attributes.read(0x30, rdnField).contents)
                _ = try objectIdentifier(try attribute.read(0x06, "\(rdnField).type").contents, "\(rdnField).type")
                let value = try attribute.readAny("\(rdnField).value")
                try attribute.end(rdnField)
                let valid: Bool
                switch value.tag {
                case 0x0C: valid = String(validating: value.contents, as: UTF8.self) != nil
                case 0x13: valid = value.contents.allSatisfy(isPrintable)
                case 0x16: valid = value.contents.allSatisfy { $0 < 0x80 }
                default:
                    throw refusal("\(rdnField).value: tag \(hex([value.tag])), not UTF8String, PrintableString or IA5String")
                }
                guard valid else { throw refusal("\(rdnField).value: characters its type does not allow") }
            }
            index += 1
        }
        return element.encoded
    }

    /// PrintableString's alphabet (X.680 §41.4).
    private static func isPrintable(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: Array(" '()+,-./:=?".utf8).contains(byte)
        }
    }

    static func refusal(_ message: String) -> CryptoError { CryptoError(.malformedCertificate, message) }

    static func hex<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }

    /// A `DERReader` that says which field it was reading when the DER is wrong.
    private struct FieldReader {
        private var reader: DERReader
        init(_ bytes: ArraySlice<UInt8>) { reader = DERReader(bytes) }

        var isAtEnd: Bool { reader.isAtEnd }
        var nextTag: UInt8? { reader.nextTag }

        mutating func read(_ tag: UInt8, _ field: String) throws(CryptoError) -> DERReader.Element {
            guard let next = reader.nextTag else { throw refusal("\(field): missing") }
            guard next == tag else { throw refusal("\(field): tag \(hex([next])), not \(hex([tag]))") }
            return try readAny(field)
        }

        mutating func readAny(_ field: String) throws(CryptoError) -> DERReader.Element {
            do { return try reader.element() } catch { throw refusal("\(field): \(error)") }
        }

        func end(_ field: String) throws(CryptoError) {
            guard reader.isAtEnd else { throw refusal("\(field): bytes after its last field") }
        }
    }
}
