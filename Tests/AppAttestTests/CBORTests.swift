@testable import AppAttest
import Testing

@Suite("Strict CBOR decoder")
struct CBORTests {
    typealias B = CBORBuilder

    @Test("decodes the kinds App Attest uses, keeping map order")
    func decodesKinds() throws {
        let encoded = B.map([
            (B.text("fmt"), B.text("apple-appattest")),
            (B.uint(1), B.uint(2)),
            ([0x20], B.array([B.bytes([1, 2, 3]), [0xf5], [0xf6]])),
        ])
        let value = try CBOR.decode(encoded)
        #expect(value["fmt"] == .text("apple-appattest"))
        #expect(value[label: 1]?.intValue == 2)
        #expect(value[label: -1] == .array([.bytes([1, 2, 3]), .boolean(true), .null]))
        guard case .map(let entries) = value else { Issue.record("not a map"); return }
        #expect(entries.map(\.key) == [.text("fmt"), .unsigned(1), .negative(0)])
    }

    @Test("decodes every argument width, up to 64 bits")
    func argumentWidths() throws {
        #expect(try CBOR.decode([0x18, 0xff]) == .unsigned(255))
        #expect(try CBOR.decode([0x19, 0x01, 0x00]) == .unsigned(256))
        #expect(try CBOR.decode([0x1a, 0x00, 0x01, 0x00, 0x00]) == .unsigned(65536))
        #expect(try CBOR.decode([0x1b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]) == .unsigned(.max))
        #expect(try CBOR.decode([0x38, 0x63]) == CBOR(integer: -100))
    }

    @Test("refuses trailing bytes after the item")
    func trailing() {
        let error = #expect(throws: CBOR.DecodingError.self) { try CBOR.decode(B.uint(1) + [0x00]) }
        #expect(error?.offset == 1)
    }

    @Test("refuses every truncation of a real attestation object without crashing")
    func everyTruncation() {
        let object = GuideVector.shared.attestation
        for length in 0..<object.count {
            #expect(throws: CBOR.DecodingError.self) { try CBOR.decode(Array(object.prefix(length))) }
        }
        #expect((try? CBOR.decode(object)) != nil)
    }

    @Test("refuses nesting deeper than the limit")
    func depth() {
        let limits = CBOR.Limits(maximumBytes: 1000, maximumDepth: 3, maximumContainerCount: 10, maximumItems: 100)
        let three = B.array([B.array([B.array([])])])
        let four = B.array([three])
        #expect((try? CBOR.decode(three, limits: limits)) != nil)
        #expect(throws: CBOR.DecodingError.self) { try CBOR.decode(four, limits: limits) }
        // A deep input the default limits refuse long before the stack could suffer.
        let deep = [UInt8](repeating: 0x81, count: 100_000) + [0x00]
        #expect(throws: CBOR.DecodingError.self) {
            try CBOR.decode(deep, limits: CBOR.Limits(maximumBytes: 200_000, maximumDepth: 8, maximumContainerCount: 64, maximumItems: 512))
        }
    }

    @Test("refuses containers, item totals and inputs above their limits")
    func counts() {
        let limits = CBOR.Limits(maximumBytes: 64, maximumDepth: 4, maximumContainerCount: 3, maximumItems: 5)
        #expect((try? CBOR.decode(B.array([B.uint(1), B.uint(2), B.uint(3)]), limits: limits)) != nil)
        #expect(throws: CBOR.DecodingError.self) {
            try CBOR.decode(B.array([B.uint(1), B.uint(2), B.uint(3), B.uint(4)]), limits: limits)
        }
        #expect(throws: CBOR.DecodingError.self) {
            try CBOR.decode(B.array([B.array([B.uint(1), B.uint(2)]), B.array([B.uint(3), B.uint(4)])]), limits: limits)
        }
        #expect(throws: CBOR.DecodingError.self) { try CBOR.decode(B.bytes([UInt8](repeating: 0, count: 64)), limits: limits) }
    }

    @Test("refuses a length that claims more than the input holds, before allocating")
    func hugeLengths() {
        #expect(throws: CBOR.DecodingError.self) { try CBOR.decode([0x5b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]) }
        #expect(throws: CBOR.DecodingError.self) { try CBOR.decode([0x9a, 0x00, 0x00, 0x00, 0x20, 0x00]) }
        #expect(throws: CBOR.DecodingError.self) { try CBOR.decode([0xb8, 0x20, 0x00]) }
    }

    @Test("refuses indefinite lengths, tags, floats, undefined and reserved headers")
    func unsupported() {
        for input: [UInt8] in [[0x5f, 0x41, 0x00, 0xff], [0x9f, 0xff], [0xc0, 0x60], [0xf9, 0x3c, 0x00], [0xf7], [0x1c], [0xf8, 0x20]] {
            #expect(throws: CBOR.DecodingError.self) { try CBOR.decode(input) }
        }
    }

    @Test("refuses duplicate map keys and text that is not UTF-8")
    func duplicatesAndUTF8() {
        #expect(throws: CBOR.DecodingError.self) { try CBOR.decode(B.map([(B.text("a"), B.uint(1)), (B.text("a"), B.uint(2))])) }
        #expect(throws: CBOR.DecodingError.self) { try CBOR.decode([0x62, 0xc3, 0x28]) }
    }

    @Test("decodes a prefix and reports where it ended")
    func prefix() throws {
        let bytes = B.map([(B.uint(1), B.uint(2))]) + B.text("next")
        let (value, end) = try CBOR.decodePrefix(bytes[...])
        #expect(value[label: 1] == .unsigned(2))
        #expect(end == 3)
    }
}
