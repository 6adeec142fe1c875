import Crypto

/// A JWT header or claims set (a JSON object), parsed for the few members verifiers read: strings, integers and
/// arrays of strings. Other values are checked for syntax and kept only as `.other`. Written for this one job
/// because a general decoder cost more than the ECDSA verification it guards.
///
/// Strict where it matters for tokens: the text must be exactly one object, and a member name that appears twice
/// makes it invalid (RFC 7515 §5.2 allows refusing; accepting would let two parsers disagree on a claim).
struct JWTObject {
    enum Value: Equatable {
        case string(String)
        case integer(Int64)
        case strings([String])
        case other
    }

    private(set) var members: [String: Value] = [:]

    /// Nil unless `bytes` is one JSON object (RFC 8259), nested at most a few levels deep.
    init?(_ bytes: [UInt8]) {
        var parser = Parser(bytes: bytes)
        guard let members = parser.parseTopObject() else { return nil }
        self.members = members
    }

    func string(_ name: String) -> String? {
        if case .string(let value) = members[name] { return value }
        return nil
    }

    func integer(_ name: String) -> Int64? {
        if case .integer(let value) = members[name] { return value }
        return nil
    }

    /// A member that is a string, or an array of strings (as `aud` may be), and whether it was an array.
    func stringOrStrings(_ name: String) -> (values: [String], isArray: Bool)? {
        switch members[name] {
        case .string(let value): ([value], false)
        case .strings(let values): (values, true)
        default: nil
        }
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0
        static let maximumDepth = 8

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func parseTopObject() -> [String: Value]? {
            skipWhitespace()
            guard let members = parseObject(depth: 0) else { return nil }
            skipWhitespace()
            return index == bytes.count ? members : nil
        }

        private mutating func parseObject(depth: Int) -> [String: Value]? {
            guard depth < Self.maximumDepth, consume(UInt8(ascii: "{")) else { return nil }
            var members = [String: Value]()
            skipWhitespace()
            if consume(UInt8(ascii: "}")) { return members }
            while true {
                skipWhitespace()
                guard let name = parseString() else { return nil }
                skipWhitespace()
                guard consume(UInt8(ascii: ":")), let value = parseValue(depth: depth + 1) else { return nil }
                guard members.updateValue(value, forKey: name) == nil else { return nil }
                skipWhitespace()
                if consume(UInt8(ascii: ",")) { continue }
                return consume(UInt8(ascii: "}")) ? members : nil
            }
        }

        private mutating func parseValue(depth: Int) -> Value? {
            skipWhitespace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "\""): return parseString().map(Value.string)
            case UInt8(ascii: "{"): return parseObject(depth: depth) == nil ? nil : .other
            case UInt8(ascii: "["): return parseArray(depth: depth)
            case UInt8(ascii: "t"): return consumeWord("true") ? .other : nil
            case UInt8(ascii: "f"): return consumeWord("false") ? .other : nil
            case UInt8(ascii: "n"): return consumeWord("null") ? .other : nil
            default: return parseNumber()
            }
        }

        private mutating func parseArray(depth: Int) -> Value? {
            guard depth < Self.maximumDepth, consume(UInt8(ascii: "[")) else { return nil }
            var strings = [String]()
            var allStrings = true
            skipWhitespace()
            if consume(UInt8(ascii: "]")) { return .strings([]) }
            while true {
                guard let element = parseValue(depth: depth + 1) else { return nil }
                if case .string(let value) = element { strings.append(value) } else { allStrings = false }
                skipWhitespace()
                if consume(UInt8(ascii: ",")) { continue }
                guard consume(UInt8(ascii: "]")) else { return nil }
                return allStrings ? .strings(strings) : .other
            }
        }

        /// An integer becomes `.integer`; a fraction or exponent makes a valid number that is `.other`.
        private mutating func parseNumber() -> Value? {
            let start = index
            _ = consume(UInt8(ascii: "-"))
            let digitsStart = index
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            let digitCount = index - digitsStart
            guard digitCount > 0, digitCount == 1 || bytes[digitsStart] != UInt8(ascii: "0") else { return nil }
            var integral = true
            if consume(UInt8(ascii: ".")) {
                integral = false
                guard skipDigits() else { return nil }
            }
            if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
                integral = false
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard skipDigits() else { return nil }
            }
            guard integral else { return .other }
            guard let value = Int64(String(decoding: bytes[start..<index], as: UTF8.self)) else { return .other }
            return .integer(value)
        }

        private mutating func parseString() -> String? {
            guard consume(UInt8(ascii: "\"")) else { return nil }
            var output = [UInt8]()
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(validating: output, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { return nil }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(escape)
                    case UInt8(ascii: "b"): output.append(0x08)
                    case UInt8(ascii: "f"): output.append(0x0C)
                    case UInt8(ascii: "n"): output.append(0x0A)
                    case UInt8(ascii: "r"): output.append(0x0D)
                    case UInt8(ascii: "t"): output.append(0x09)
                    case UInt8(ascii: "u"):
                        guard let scalar = parseUnicodeEscape() else { return nil }
                        output.append(contentsOf: Array(String(Character(scalar)).utf8))
                    default: return nil
                    }
                case 0..<0x20:
                    return nil
                default:
                    output.append(byte)
                }
            }
            return nil
        }

        /// The scalar of `\uXXXX` (the `\u` already read), joining a surrogate pair written as two escapes.
        private mutating func parseUnicodeEscape() -> Unicode.Scalar? {
            guard let high = parseHex4() else { return nil }
            if (0xD800..<0xDC00).contains(high) {
                guard consume(UInt8(ascii: "\\")), consume(UInt8(ascii: "u")), let low = parseHex4(),
                      (0xDC00..<0xE000).contains(low)
                else { return nil }
                return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
            }
            return Unicode.Scalar(high)
        }

        private mutating func parseHex4() -> UInt32? {
            guard index + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for byte in bytes[index..<(index + 4)] {
                guard let digit = Hex.digitValue(byte).map(UInt32.init) else { return nil }
                value = value << 4 | digit
            }
            index += 4
            return value
        }

        private mutating func skipDigits() -> Bool {
            let start = index
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            return index > start
        }

        private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

        private mutating func consume(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        private mutating func consumeWord(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            let matches = word.withUTF8Buffer { bytes[index..<(index + count)].elementsEqual($0) }
            if matches { index += count }
            return matches
        }

        private mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }
    }
}
