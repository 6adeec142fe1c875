/// A tiny CBOR encoder for building test inputs by hand (definite lengths, shortest arguments).
enum CBORBuilder {
    static func head(_ major: UInt8, _ value: Int) -> [UInt8] {
        switch value {
        case 0..<24: [major << 5 | UInt8(value)]
        case 24..<256: [major << 5 | 24, UInt8(value)]
        case 256..<65536: [major << 5 | 25, UInt8(value >> 8), UInt8(value & 0xff)]
        default: [major << 5 | 26] + (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        }
    }
    static func uint(_ value: Int) -> [UInt8] { head(0, value) }
    static func bytes(_ value: [UInt8]) -> [UInt8] { head(2, value.count) + value }
    static func text(_ value: String) -> [UInt8] { head(3, value.utf8.count) + Array(value.utf8) }
    static func array(_ elements: [[UInt8]]) -> [UInt8] { head(4, elements.count) + elements.flatMap { $0 } }
    static func map(_ entries: [([UInt8], [UInt8])]) -> [UInt8] {
        head(5, entries.count) + entries.flatMap { $0.0 + $0.1 }
    }
}
