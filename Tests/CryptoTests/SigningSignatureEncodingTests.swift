import Testing
@testable import Crypto

@Suite("ECDSA signature encodings")
struct SigningSignatureEncodingTests {
    @Test("reads back r‖s from the DER OpenSSL writes, with high bits set, leading zeros and short scalars")
    func roundTrips() throws {
        var samples: [[UInt8]] = [
            [UInt8](repeating: 0xff, count: 64),
            [UInt8](repeating: 0, count: 31) + [1] + [UInt8](repeating: 0, count: 31) + [2],
            [0x00, 0x80] + [UInt8](repeating: 0x11, count: 30) + [0x7f] + [UInt8](repeating: 0x22, count: 31),
        ]
        for _ in 0..<32 { samples.append(SecureRandom.bytes(count: 64)) }
        for raw in samples {
            let der = try #require(SigningSignatureEncoding.der(fromRaw: raw))
            #expect(SigningSignatureEncoding.raw(fromDER: der) == raw)
        }
    }

    @Test("refuses DER that is cut short, too long, or has a scalar wider than the curve")
    func refusesMalformed() throws {
        let der = try #require(SigningSignatureEncoding.der(fromRaw: [UInt8](repeating: 0x42, count: 64)))
        #expect(SigningSignatureEncoding.raw(fromDER: Array(der.dropLast())) == nil)
        #expect(SigningSignatureEncoding.raw(fromDER: der + [0]) == nil)
        #expect(SigningSignatureEncoding.raw(fromDER: [0x30, 0x06, 0x02, 0x01, 0x01, 0x04, 0x01, 0x01]) == nil)
        let wide: [UInt8] = [0x30, 0x26, 0x02, 0x21, 0x01] + [UInt8](repeating: 0x42, count: 32) + [0x02, 0x01, 0x01]
        #expect(SigningSignatureEncoding.raw(fromDER: wide) == nil)
        #expect(SigningSignatureEncoding.raw(fromDER: []) == nil)
    }
}
