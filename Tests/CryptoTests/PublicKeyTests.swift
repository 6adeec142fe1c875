import Crypto
import Testing

@Suite("EC public keys")
struct PublicKeyTests {
    /// The P-256 generator point: on the curve by definition.
    let generator: [UInt8] = [0x04]
        + [0x6b, 0x17, 0xd1, 0xf2, 0xe1, 0x2c, 0x42, 0x47, 0xf8, 0xbc, 0xe6, 0xe5, 0x63, 0xa4, 0x40, 0xf2,
           0x77, 0x03, 0x7d, 0x81, 0x2d, 0xeb, 0x33, 0xa0, 0xf4, 0xa1, 0x39, 0x45, 0xd8, 0x98, 0xc2, 0x96]
        + [0x4f, 0xe3, 0x42, 0xe2, 0xfe, 0x1a, 0x7f, 0x9b, 0x8e, 0xe7, 0xeb, 0x4a, 0x7c, 0x0f, 0x9e, 0x16,
           0x2b, 0xce, 0x33, 0x57, 0x6b, 0x31, 0x5e, 0xce, 0xcb, 0xb6, 0x40, 0x68, 0x37, 0xbf, 0x51, 0xf5]

    @Test("builds a P-256 key from an uncompressed point and gives the point back")
    func roundTrip() throws {
        let key = try PublicKey(p256UncompressedPoint: generator)
        #expect(key.curveName == "prime256v1")
        #expect(key.ecPoint == generator)
        #expect(key.subjectPublicKeyInfoDER.count == 91)
        let again = try PublicKey(subjectPublicKeyInfoDER: key.subjectPublicKeyInfoDER)
        #expect(again.ecPoint == generator)
    }

    @Test("refuses points off the curve and points of the wrong shape")
    func refusesBadPoints() {
        var offCurve = generator
        offCurve[64] ^= 1
        #expect(throws: CryptoError(.malformedKey, "")) { try PublicKey(p256UncompressedPoint: offCurve) }
        #expect(throws: CryptoError(.malformedKey, "")) { try PublicKey(p256UncompressedPoint: Array(generator.prefix(33))) }
        var compressedTag = generator
        compressedTag[0] = 0x02
        #expect(throws: CryptoError(.malformedKey, "")) { try PublicKey(p256UncompressedPoint: compressedTag) }
    }

    @Test("rejects a signature that is not DER ECDSA over the message")
    func rejectsSignature() throws {
        let key = try PublicKey(p256UncompressedPoint: generator)
        #expect(!key.isValidSignature([0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01] as [UInt8], for: [1, 2, 3] as [UInt8]))
        #expect(!key.isValidSignature([UInt8](), for: [1, 2, 3] as [UInt8]))
    }
}

@Suite("DER reading")
struct DERReaderTests {
    @Test("reads object identifiers in dotted form")
    func oids() {
        var reader = DERReader([0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x63, 0x64, 0x08, 0x02][...])
        #expect(reader.readObjectIdentifier() == "1.2.840.113635.100.8.2")
        #expect(reader.isAtEnd)
        #expect(DERReader.dotted([0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01][...]) == "2.16.840.1.101.3.4.2.1")
        #expect(DERReader.dotted([0x2a, 0x86][...]) == nil)
    }

    @Test("encodes dotted identifiers back to the bytes they were read from")
    func oidRoundTrip() {
        for dotted in ["1.2.840.113635.100.8.2", "2.16.840.1.101.3.4.2.1", "2.5.29.15", "1.2.840.10045.3.1.7"] {
            let contents = DERReader.objectIdentifierContents(dotted)
            #expect(contents.flatMap { DERReader.dotted($0[...]) } == dotted)
        }
        #expect(DERReader.objectIdentifierContents("3.1") == nil)
        #expect(DERReader.objectIdentifierContents("1.x") == nil)
        #expect(DERReader.objectIdentifierContents("1") == nil)
    }

    @Test("refuses indefinite lengths and lengths past the end")
    func lengths() {
        var indefinite = DERReader([0x30, 0x80, 0x00, 0x00][...])
        #expect(indefinite.readElement() == nil)
        var overlong = DERReader([0x04, 0x05, 0x00][...])
        #expect(overlong.readElement() == nil)
    }

    @Test("reads only shortest-form lengths, and says what is wrong with the others")
    func minimalLengths() throws {
        func malformed(_ bytes: [UInt8]) -> String? {
            var reader = DERReader(bytes[...])
            do {
                _ = try reader.element()
                return nil
            } catch { return error.description }
        }
        #expect(malformed([0x30, 0x80, 0x00, 0x00]) == "indefinite length")
        #expect(malformed([0x04, 0x81, 0x01, 0xff]) == "long-form length 1, below 128")
        #expect(malformed([0x04, 0x82, 0x00, 0x01, 0xff]) == "length with a leading zero octet")
        #expect(malformed([0x04, 0x85, 0x01, 0x00, 0x00, 0x00, 0x00]) == "length of 5 octets")
        #expect(malformed([0x04, 0x05, 0x00]) == "length 5 past the end (1 bytes left)")
        #expect(malformed([0x1f, 0x01, 0x00]) == "multi-byte tag")
        #expect(malformed([0x04]) == "truncated header")
        let long = [0x04, 0x81, 0x80] + [UInt8](repeating: 7, count: 128)
        var reader = DERReader(long[...])
        #expect(try reader.element().contents.count == 128)
        #expect(reader.isAtEnd)
    }

    @Test("reads INTEGERs and OBJECT IDENTIFIERs in their shortest form only")
    func minimalIntegersAndIdentifiers() {
        #expect(DERReader.isMinimalInteger([0x00][...]))
        #expect(DERReader.isMinimalInteger([0x00, 0x80][...]))
        #expect(DERReader.isMinimalInteger([0xff, 0x7f][...]))
        #expect(!DERReader.isMinimalInteger([][...]))
        #expect(!DERReader.isMinimalInteger([0x00, 0x7f][...]))
        #expect(!DERReader.isMinimalInteger([0xff, 0x80][...]))
        var padded = DERReader([0x02, 0x02, 0x00, 0x05][...])
        #expect(padded.readSmallInteger() == nil)
        #expect(DERReader.isValidObjectIdentifier([0x2a, 0x86, 0x48][...]))
        #expect(!DERReader.isValidObjectIdentifier([0x2a, 0x80, 0x86, 0x48][...]))
        #expect(!DERReader.isValidObjectIdentifier([0x80, 0x2a][...]))
        #expect(DERReader.dotted([0x2a, 0x80, 0x01][...]) == nil)
    }

    @Test("refuses certificates with trailing bytes or a mismatched inner algorithm")
    func certificates() {
        #expect(DERCertificate([0x30, 0x00]) == nil)
        #expect(DERCertificate([]) == nil)
        #expect(throws: CryptoError(.malformedCertificate, "")) { try Certificate(derEncoded: [0x30, 0x03, 0x02, 0x01, 0x01]) }
    }
}

@Suite("Public key cache")
struct PublicKeyCacheTests {
    let generator = PublicKeyTests().generator

    @Test("returns the same key for a point seen before and stays within its capacity")
    func cached() throws {
        let cache = PublicKeyCache(capacity: 1)
        let first = try cache.key(p256UncompressedPoint: generator)
        #expect(try cache.key(p256UncompressedPoint: generator) === first)
        #expect(cache.count == 1)
        var other = generator
        other[64] ^= 1
        #expect(throws: CryptoError(.malformedKey, "")) { try cache.key(p256UncompressedPoint: other) }
        #expect(cache.count == 1)
    }

    @Test("builds a fresh key every time with capacity 0")
    func disabled() throws {
        let cache = PublicKeyCache(capacity: 0)
        #expect(try cache.key(p256UncompressedPoint: generator) !== cache.key(p256UncompressedPoint: generator))
        #expect(cache.count == 0)
    }
}
