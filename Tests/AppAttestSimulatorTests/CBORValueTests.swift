import AppAttestSimulator
import Testing

@Suite("CBOR encoding")
struct CBORValueTests {
    @Test("writes the RFC 8949 Appendix A examples byte for byte")
    func rfcExamples() {
        #expect(CBORValue.unsigned(0).encoded == [0x00])
        #expect(CBORValue.unsigned(23).encoded == [0x17])
        #expect(CBORValue.unsigned(24).encoded == [0x18, 0x18])
        #expect(CBORValue.unsigned(1000).encoded == [0x19, 0x03, 0xE8])
        #expect(CBORValue.unsigned(1_000_000).encoded == [0x1A, 0x00, 0x0F, 0x42, 0x40])
        #expect(CBORValue.unsigned(1_000_000_000_000).encoded == [0x1B, 0x00, 0x00, 0x00, 0xE8, 0xD4, 0xA5, 0x10, 0x00])
        #expect(CBORValue.negative(0).encoded == [0x20])
        #expect(CBORValue.negative(99).encoded == [0x38, 0x63])
        #expect(CBORValue.text("IETF").encoded == [0x64, 0x49, 0x45, 0x54, 0x46])
        #expect(CBORValue.bytes([1, 2, 3, 4]).encoded == [0x44, 1, 2, 3, 4])
        #expect(CBORValue.array([.unsigned(1), .array([.unsigned(2), .unsigned(3)])]).encoded == [0x82, 0x01, 0x82, 0x02, 0x03])
        #expect(CBORValue.map([(.unsigned(1), .unsigned(2)), (.unsigned(3), .unsigned(4))]).encoded == [0xA2, 0x01, 0x02, 0x03, 0x04])
    }

    @Test("keeps map entries in the order given")
    func mapOrder() {
        let map = CBORValue.map([(.text("b"), .unsigned(1)), (.text("a"), .unsigned(2))])
        #expect(map.encoded == [0xA2, 0x61, 0x62, 0x01, 0x61, 0x61, 0x02])
    }

    @Test("writes a 300-byte byte string with a two-byte length")
    func longBytes() {
        let encoded = CBORValue.bytes([UInt8](repeating: 7, count: 300)).encoded
        #expect(Array(encoded.prefix(3)) == [0x59, 0x01, 0x2C])
        #expect(encoded.count == 303)
    }
}
