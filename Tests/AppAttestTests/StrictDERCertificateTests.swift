import AppAttest
import Crypto
import Testing

/// The short certificate path (`DERCertificate`) reads strict DER only: one test per rule, each on Apple's real
/// App Attest leaf changed in one place, each refusal naming the field and the rule.
@Suite("Strict DER certificates")
struct StrictDERCertificateTests {
    /// Apple's real credential certificate, from the guide vector.
    static let leaf = try! AttestationObject(GuideVector.shared.attestation).certificateChainDER[0]

    /// `Certificate`, `tbsCertificate` and the paths of its fields in a `DERTree` of the leaf.
    enum Path {
        static let tbs = [0], signatureAlgorithm = [1], signatureValue = [2]
        static let version = [0, 0], serial = [0, 1], innerAlgorithm = [0, 2], issuer = [0, 3], validity = [0, 4]
        static let notBefore = [0, 4, 0], notAfter = [0, 4, 1], subject = [0, 5], keyInfo = [0, 6], key = [0, 6, 1]
        static let extensions = [0, 7], extensionList = [0, 7, 0]
        /// basicConstraints (critical), keyUsage (critical), extKeyUsage, 8.5, 8.7, the nonce (8.2), 8.6.
        static func extensionItem(_ index: Int) -> [Int] { extensionList + [index] }
    }

    /// The message `DERCertificate(parsing:)` refuses `der` with, or nil when it reads it.
    static func refusal(_ der: [UInt8]) -> String? {
        do {
            _ = try DERCertificate(parsing: der)
            return nil
        } catch {
            return error.code == .malformedCertificate ? error.message : "unexpected code \(error.code)"
        }
    }

    /// The leaf, changed by `change`, lengths recomputed.
    static func leaf(_ change: (inout DERTree) -> Void) -> [UInt8] {
        var tree = DERTree(leaf)
        change(&tree)
        return tree.encoded
    }

    /// The leaf with its notBefore replaced.
    static func leaf(notBefore tag: UInt8, _ text: String) -> [UInt8] {
        leaf { $0[Path.notBefore[...]] = DERTree(tag: tag, contents: Array(text.utf8)) }
    }

    @Test("reads Apple's real leaf, and the tree the tests change it with gives back its exact bytes")
    func readsTheRealLeaf() throws {
        #expect(DERTree(Self.leaf).encoded == Self.leaf)
        let certificate = try DERCertificate(parsing: Self.leaf)
        #expect(certificate.extensions.count == 7)
        #expect(certificate.notBefore == 1_776_708_792)  // 2026-04-20 18:13:12Z
    }

    // MARK: Lengths

    @Test("refuses a long-form length below 128")
    func longFormLength() {
        let der = Self.leaf { $0[Path.version[...]].length = [0x81, 0x03] }
        #expect(Self.refusal(der) == "version: long-form length 3, below 128")
    }

    @Test("refuses a length with a leading zero octet")
    func leadingZeroLength() {
        let der = Self.leaf { $0[Path.tbs[...]].length = [0x83, 0x00, 0x03, 0xa3] }
        #expect(Self.refusal(der) == "tbsCertificate: length with a leading zero octet")
    }

    @Test("refuses an indefinite length (BER), which OpenSSL reads")
    func indefiniteLength() throws {
        let tree = DERTree(Self.leaf)
        let der = [0x30, 0x80] + tree.children.flatMap(\.encoded) + [0x00, 0x00]
        #expect(Self.refusal(der) == "Certificate: indefinite length")
    }

    @Test("refuses bytes after the certificate, and every truncation of it")
    func trailingAndTruncated() {
        #expect(Self.refusal(Self.leaf + [0x00]) == "the certificate: bytes after its last field")
        for count in 0..<Self.leaf.count {
            #expect(Self.refusal(Array(Self.leaf.prefix(count))) != nil, "\(count) bytes")
        }
    }

    @Test("refuses bytes after the last field of tbsCertificate, of an extension, of validity")
    func trailingInside() {
        let tbs = Self.leaf { $0[Path.tbs[...]].children.append(DERTree(tag: 0x05, contents: [])) }
        #expect(Self.refusal(tbs) == "tbsCertificate: bytes after its last field")
        let item = Self.leaf { $0[Path.extensionItem(5)[...]].children.append(DERTree(tag: 0x05, contents: [])) }
        #expect(Self.refusal(item) == "extensions[5]: bytes after its last field")
        let validity = Self.leaf { $0[Path.validity[...]].children.append($0[Path.notAfter[...]]) }
        #expect(Self.refusal(validity) == "validity: bytes after its last field")
    }

    // MARK: INTEGERs and the version

    @Test("refuses a serial number with a superfluous leading octet, and a negative one")
    func serialNumber() {
        let padded = Self.leaf { $0[Path.serial[...]].contents.insert(0x00, at: 0) }
        #expect(Self.refusal(padded) == "serialNumber: INTEGER 00019db1 is not minimal")
        let sign = Self.leaf { $0[Path.serial[...]].contents = [0xff, 0x80, 0x01] }
        #expect(Self.refusal(sign) == "serialNumber: INTEGER ff8001 is not minimal")
        let empty = Self.leaf { $0[Path.serial[...]].contents = [] }
        #expect(Self.refusal(empty) == "serialNumber: INTEGER  is not minimal")
        let negative = Self.leaf { $0[Path.serial[...]].contents = [0x80, 0x01] }
        #expect(Self.refusal(negative) == "serialNumber: negative")
    }

    @Test("refuses a certificate that is not v3: v1 (no version), v2, v4, or v3 written with a leading zero")
    func version() {
        let v1 = Self.leaf { $0[Path.tbs[...]].children.removeFirst() }
        #expect(Self.refusal(v1) == "version: tag 02, not a0")
        let v2 = Self.leaf { $0[Path.version + [0]].contents = [0x01] }
        #expect(Self.refusal(v2) == "version: 01, not v3 (02)")
        let v4 = Self.leaf { $0[Path.version + [0]].contents = [0x03] }
        #expect(Self.refusal(v4) == "version: 03, not v3 (02)")
        let padded = Self.leaf { $0[Path.version + [0]].contents = [0x00, 0x02] }
        #expect(Self.refusal(padded) == "version: INTEGER 0002 is not minimal")
        let primitive = Self.leaf { $0[Path.version[...]] = DERTree(tag: 0x80, contents: [0x02]) }
        #expect(Self.refusal(primitive) == "version: tag 80, not a0")
    }

    // MARK: Extensions

    @Test("refuses an extension that appears twice, whatever its value")
    func duplicateExtension() {
        let same = Self.leaf { $0[Path.extensionList[...]].children.append($0[Path.extensionItem(5)[...]]) }
        #expect(Self.refusal(same) == "extensions[7]: a second extension 1.2.840.113635.100.8.2")
        let other = Self.leaf { tree in
            var copy = tree[Path.extensionItem(0)[...]]
            copy.children[2].contents = [0x30, 0x03, 0x01, 0x01, 0xff]
            tree[Path.extensionList[...]].children.insert(copy, at: 1)
        }
        #expect(Self.refusal(other) == "extensions[1]: a second extension 2.5.29.19")
    }

    @Test("refuses critical written as FALSE (DER leaves the default out) or as a TRUE other than 0xFF")
    func criticalBoolean() {
        let one = Self.leaf { $0[Path.extensionItem(0) + [1]].contents = [0x01] }
        #expect(Self.refusal(one) == "extensions[0].critical: 01, not the DER TRUE (ff)")
        let explicitFalse = Self.leaf { $0[Path.extensionItem(0) + [1]].contents = [0x00] }
        #expect(Self.refusal(explicitFalse) == "extensions[0].critical: 00, not the DER TRUE (ff)")
        let long = Self.leaf { $0[Path.extensionItem(0) + [1]].contents = [0xff, 0xff] }
        #expect(Self.refusal(long) == "extensions[0].critical: ffff, not the DER TRUE (ff)")
    }

    @Test("refuses an empty extensions list, and extensions that are not SEQUENCEs of OCTET STRINGs")
    func extensionShapes() {
        let empty = Self.leaf { $0[Path.extensionList[...]].children = [] }
        #expect(Self.refusal(empty) == "extensions: present but empty")
        let constructed = Self.leaf { tree in
            let value = tree[Path.extensionItem(5) + [1]].contents
            tree[Path.extensionItem(5) + [1]] = DERTree(tag: 0x24, children: [DERTree(tag: 0x04, contents: value)])
        }
        #expect(Self.refusal(constructed) == "extensions[5].extnValue: tag 24, not 04")
        let unwrapped = Self.leaf { $0[Path.extensions[...]] = DERTree(tag: 0xa3, children: $0[Path.extensionList[...]].children) }
        #expect(Self.refusal(unwrapped)?.hasPrefix("extensions: ") == true)
    }

    @Test("refuses an OBJECT IDENTIFIER whose arc starts with the padding octet 0x80")
    func objectIdentifier() {
        let der = Self.leaf { $0[Path.extensionItem(5) + [0]].contents.insert(0x80, at: 1) }
        #expect(Self.refusal(der) == "extensions[5].extnID: 2a80864886f763640802 is not an OBJECT IDENTIFIER")
    }

    // MARK: Times

    @Test("reads the times RFC 5280 writes, leap days included")
    func validTimes() throws {
        #expect(try DERCertificate(parsing: Self.leaf(notBefore: 0x17, "240229000000Z")).notBefore == 1_709_164_800)
        #expect(try DERCertificate(parsing: Self.leaf(notBefore: 0x17, "000229120000Z")).notBefore == 951_825_600)
        #expect(try DERCertificate(parsing: Self.leaf(notBefore: 0x17, "500101000000Z")).notBefore == -631_152_000)
        #expect(try DERCertificate(parsing: Self.leaf(notBefore: 0x17, "491231235959Z")).notBefore == 2_524_607_999)
        #expect(try DERCertificate(parsing: Self.leaf(notBefore: 0x18, "20500101000000Z")).notBefore == 2_524_608_000)
        #expect(try DERCertificate(parsing: Self.leaf(notBefore: 0x18, "99991231235959Z")).notBefore == 253_402_300_799)
    }

    @Test("refuses a date the calendar does not have")
    func calendar() {
        for text in ["250229000000Z", "260431000000Z", "261301000000Z", "260001000000Z", "260100000000Z",
                     "260132000000Z", "260101240000Z", "260101006000Z", "260101000060Z"]
        {
            #expect(Self.refusal(Self.leaf(notBefore: 0x17, text)) == "notBefore: UTCTime \"\(text)\" is not a time")
        }
        #expect(Self.refusal(Self.leaf(notBefore: 0x18, "21000229000000Z"))
            == "notBefore: GeneralizedTime \"21000229000000Z\" is not a time")
    }

    @Test("refuses times not in RFC 5280's form: no Z, an offset, no seconds, fractions, signs")
    func timeForms() {
        for text in ["2601011200Z", "260101120000", "260101120000+0000", "2601011200000Z", "26010112000 Z", "-60101120000Z"] {
            #expect(Self.refusal(Self.leaf(notBefore: 0x17, text)) == "notBefore: UTCTime \"\(text)\" is not YYMMDDHHMMSSZ")
        }
        for text in ["20500101000000.5Z", "20500101000000", "205001010000Z", "20500101000000+0100"] {
            #expect(Self.refusal(Self.leaf(notBefore: 0x18, text))
                == "notBefore: GeneralizedTime \"\(text)\" is not YYYYMMDDHHMMSSZ")
        }
        #expect(Self.refusal(Self.leaf(notBefore: 0x04, "260101000000Z"))
            == "notBefore: tag 04, not UTCTime (17) or GeneralizedTime (18)")
    }

    @Test("refuses GeneralizedTime before 2050, which RFC 5280 writes as UTCTime")
    func generalizedTimeBefore2050() {
        #expect(Self.refusal(Self.leaf(notBefore: 0x18, "20260420181312Z"))
            == "notBefore: GeneralizedTime for 2026, which RFC 5280 writes as UTCTime")
        #expect(Self.refusal(Self.leaf(notBefore: 0x18, "20491231235959Z"))
            == "notBefore: GeneralizedTime for 2049, which RFC 5280 writes as UTCTime")
    }

    // MARK: BIT STRINGs, tags, algorithms, names

    @Test("refuses a signature or key BIT STRING with unused bits, and an empty one")
    func bitStrings() {
        let signature = Self.leaf { $0[Path.signatureValue[...]].contents[0] = 0x01 }
        #expect(Self.refusal(signature) == "signatureValue: BIT STRING with 1 unused bits, not whole bytes")
        let key = Self.leaf { $0[Path.key[...]].contents[0] = 0x07 }
        #expect(Self.refusal(key) == "subjectPublicKeyInfo.subjectPublicKey: BIT STRING with 7 unused bits, not whole bytes")
        let empty = Self.leaf { $0[Path.signatureValue[...]].contents = [] }
        #expect(Self.refusal(empty) == "signatureValue: an empty BIT STRING")
    }

    @Test("refuses fields with the wrong tag")
    func wrongTags() {
        let serial = Self.leaf { $0[Path.serial[...]].tag = 0x03 }
        #expect(Self.refusal(serial) == "serialNumber: tag 03, not 02")
        let issuer = Self.leaf { $0[Path.issuer[...]].tag = 0x31 }
        #expect(Self.refusal(issuer) == "issuer: tag 31, not 30")
        let key = Self.leaf { $0[Path.key[...]].tag = 0x04 }
        #expect(Self.refusal(key) == "subjectPublicKey: tag 04, not 03")
        let signature = Self.leaf { $0[Path.signatureValue[...]].tag = 0x04 }
        #expect(Self.refusal(signature) == "signatureValue: tag 04, not 03")
        let constructedSet = Self.leaf { $0[Path.subject + [0]].tag = 0x30 }
        #expect(Self.refusal(constructedSet) == "subject[0]: tag 30, not 31")
    }

    @Test("refuses an inner signature algorithm other than the outer one, and parameters other than NULL or a curve")
    func algorithms() {
        let mismatch = Self.leaf { $0[Path.innerAlgorithm + [0]].contents[7] = 0x03 }
        #expect(Self.refusal(mismatch) == "signature: not the certificate's signatureAlgorithm")
        let integer = Self.leaf { tree in
            for path in [Path.innerAlgorithm, Path.signatureAlgorithm] { tree[path[...]].children.append(DERTree(tag: 0x02, contents: [1])) }
        }
        #expect(Self.refusal(integer) == "signatureAlgorithm.parameters: tag 02, not NULL or an OBJECT IDENTIFIER")
        let null = Self.leaf { tree in
            for path in [Path.innerAlgorithm, Path.signatureAlgorithm] { tree[path[...]].children.append(DERTree(tag: 0x05, contents: [])) }
        }
        #expect(Self.refusal(null) == nil)
        let badNull = Self.leaf { tree in
            for path in [Path.innerAlgorithm, Path.signatureAlgorithm] { tree[path[...]].children.append(DERTree(tag: 0x05, contents: [0])) }
        }
        #expect(Self.refusal(badNull) == "signatureAlgorithm.parameters: tag 05, not NULL or an OBJECT IDENTIFIER")
    }

    @Test("refuses name values that are not UTF8String, PrintableString or IA5String, or hold characters their type does not allow")
    func names() {
        let integer = Self.leaf { $0[Path.subject + [1, 0, 1]].tag = 0x02 }
        #expect(Self.refusal(integer) == "subject[1].value: tag 02, not UTF8String, PrintableString or IA5String")
        let overlong = Self.leaf { $0[Path.subject + [1, 0, 1]].contents = [0x41, 0xc0, 0x80] }
        #expect(Self.refusal(overlong) == "subject[1].value: characters its type does not allow")
        let printable = Self.leaf { $0[Path.issuer + [1, 0, 1]] = DERTree(tag: 0x13, contents: Array("Apple*".utf8)) }
        #expect(Self.refusal(printable) == "issuer[1].value: characters its type does not allow")
        let printableOK = Self.leaf { $0[Path.issuer + [1, 0, 1]] = DERTree(tag: 0x13, contents: Array("Apple Inc.".utf8)) }
        #expect(Self.refusal(printableOK) == nil)
        let emptySet = Self.leaf { $0[Path.issuer + [2]].children = [] }
        #expect(Self.refusal(emptySet) == "issuer[2]: an empty RelativeDistinguishedName")
    }

    @Test("reads primitive unique identifiers in order, and refuses constructed ones")
    func uniqueIdentifiers() {
        let both = Self.leaf { tree in
            tree[Path.tbs[...]].children.insert(contentsOf: [DERTree(tag: 0x81, contents: [0, 1]), DERTree(tag: 0x82, contents: [1, 0x80])], at: 7)
        }
        #expect(Self.refusal(both) == nil)
        let unusedSet = Self.leaf { $0[Path.tbs[...]].children.insert(DERTree(tag: 0x81, contents: [1, 0x81]), at: 7) }
        #expect(Self.refusal(unusedSet) == "issuerUniqueID: not a DER BIT STRING")
        let reversed = Self.leaf { tree in
            tree[Path.tbs[...]].children.insert(contentsOf: [DERTree(tag: 0x82, contents: [0]), DERTree(tag: 0x81, contents: [0])], at: 7)
        }
        #expect(Self.refusal(reversed) == "tbsCertificate: bytes after its last field")
        let constructed = Self.leaf { $0[Path.tbs[...]].children.insert(DERTree(tag: 0xa1, children: [DERTree(tag: 0x03, contents: [0])]), at: 7) }
        #expect(Self.refusal(constructed) == "tbsCertificate: bytes after its last field")
    }

    @Test("refuses an attestation whose credential certificate is not strict DER as malformed(attStmt.x5c), naming the rule")
    func attestationNamesTheRule() {
        let test = SimulatedAttestationCase(options: .init {
            $0.x5c = { chain in
                var tree = DERTree(chain[0])
                tree[Path.serial[...]].contents.insert(0x00, at: 0)
                return [tree.encoded, chain[1]]
            }
        })
        #expect(throws: AppAttestError(.malformed("attStmt.x5c"))) { try test.verify() }
        do {
            try test.verify()
        } catch {
            #expect(error.detail.hasPrefix("the credential certificate is not DER X.509: serialNumber: INTEGER 00"), "\(error.detail)")
            #expect(error.detail.hasSuffix(" is not minimal"), "\(error.detail)")
        }
    }
}
