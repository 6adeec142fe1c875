/// A strict, bounded JSON parser (RFC 8259): one value, surrounded only by whitespace; strings must be UTF-8 and
/// `\u` escapes must pair their surrogates; numbers follow the grammar exactly (no leading zeros, no `+`, no
/// trailing `.`). Size and nesting are limited so that hostile input costs little.
public struct JSONParser: Sendable {
    /// The largest text accepted, in bytes.
    public var maxBytes: Int
    /// The deepest nesting of arrays and objects accepted.
    public var maxDepth: Int

    public init(maxBytes: Int = 64 * 1024, maxDepth: Int = 32) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
    }

    /// Parses `text` into one value.
    public func parse(_ text: [UInt8]) throws(JSONError) -> JSONValue {
        try parse(text[...])
    }

    /// Parses `text` into one value.
    public func parse(_ text: ArraySlice<UInt8>) throws(JSONError) -> JSONValue {
        guard text.count <= maxBytes else {
            throw JSONError(.tooLarge, "JSON text of \(text.count) bytes is over the limit of \(maxBytes)", offset: 0)
        }
        let result: Result<JSONValue, JSONError> = text.withUnsafeBufferPointer { buffer in
            var scanner = Scanner(bytes: buffer, maxDepth: maxDepth)
            do throws(JSONError) {
                scanner.skipWhitespace()
                let value = try scanner.value(depth: 0)
                scanner.skipWhitespace()
                guard scanner.index == buffer.count else { throw scanner.error("unexpected text after the JSON value") }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

extension JSONParser {
    /// The cursor over one text; lives only inside `parse`.
    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        let maxDepth: Int
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
            self.bytes = bytes
            self.maxDepth = maxDepth
        }

        func error(_ message: String, _ code: JSONError.Code = .syntax) -> JSONError {
            JSONError(code, message, offset: index)
        }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) throws(JSONError) -> JSONValue {
            guard index < bytes.count else { throw error("unexpected end of the JSON text") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
            default: throw error("unexpected character")
            }
        }

        mutating func literal(_ word: StaticString) throws(JSONError) {
            let count = word.utf8CodeUnitCount
            guard bytes.count - index >= count,
                  UnsafeBufferPointer(rebasing: bytes[index..<(index + count)]).elementsEqual(
                      UnsafeBufferPointer(start: word.utf8Start, count: count)) else {
                throw error("unexpected character")
            }
            index += count
        }

        mutating func object(depth: Int) throws(JSONError) -> JSONValue {
            guard depth <= maxDepth else { throw error("JSON nests deeper than \(maxDepth) levels", .tooDeep) }
            index += 1
            var members: [JSONMember] = []
            skipWhitespace()
            if index < bytes.count && bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a string key") }
                let key = try string()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
                index += 1
                skipWhitespace()
                members.append(JSONMember(key, try value(depth: depth)))
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end of the JSON text") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
                throw error("expected ',' or '}'")
            }
        }

        mutating func array(depth: Int) throws(JSONError) -> JSONValue {
            guard depth <= maxDepth else { throw error("JSON nests deeper than \(maxDepth) levels", .tooDeep) }
            index += 1
            var elements: [JSONValue] = []
            skipWhitespace()
            if index < bytes.count && bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
            while true {
                skipWhitespace()
                elements.append(try value(depth: depth))
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end of the JSON text") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
                throw error("expected ',' or ']'")
            }
        }

        mutating func number() throws(JSONError) -> String {
            let start = index
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("expected a digit") }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
                if index < bytes.count && isDigit(bytes[index]) { throw error("numbers may not have leading zeros") }
            } else {
                skipDigits()
            }
            if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard index < bytes.count, isDigit(bytes[index]) else { throw error("expected a digit after '.'") }
                skipDigits()
            }
            if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
                index += 1
                if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) {
                    index += 1
                }
                guard index < bytes.count, isDigit(bytes[index]) else { throw error("expected a digit in the exponent") }
                skipDigits()
            }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        }

        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

        mutating func skipDigits() {
            while index < bytes.count && isDigit(bytes[index]) { index += 1 }
        }

        mutating func string() throws(JSONError) -> String {
            index += 1
            let start = index
            // Fast path: no escapes, so the string is the bytes themselves.
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
                    index += 1
                    guard let string = String(validating: text, as: UTF8.self) else {
                        throw JSONError(.invalidUTF8, "a string is not valid UTF-8", offset: start)
                    }
                    return string
                }
                if byte == UInt8(ascii: "\\") { break }
                guard byte >= 0x20 else { throw error("control character in a string") }
                index += 1
            }
            var out = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    guard let string = String(validating: out, as: UTF8.self) else {
                        throw JSONError(.invalidUTF8, "a string is not valid UTF-8", offset: start)
                    }
                    return string
                case UInt8(ascii: "\\"):
                    index += 1
                    try escape(into: &out)
                case 0..<0x20:
                    throw error("control character in a string")
                default:
                    out.append(byte)
                    index += 1
                }
            }
            throw error("unterminated string")
        }

        mutating func escape(into out: inout [UInt8]) throws(JSONError) {
            guard index < bytes.count else { throw error("unterminated string") }
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(byte)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = UInt32(try hex4())
                if (0xD800...0xDBFF).contains(scalar) {
                    guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"),
                          bytes[index + 1] == UInt8(ascii: "u") else {
                        throw error("unpaired surrogate in a \\u escape", .invalidUTF8)
                    }
                    index += 2
                    let low = UInt32(try hex4())
                    guard (0xDC00...0xDFFF).contains(low) else {
                        throw error("unpaired surrogate in a \\u escape", .invalidUTF8)
                    }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw error("unpaired surrogate in a \\u escape", .invalidUTF8)
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape", .invalidUTF8) }
                out.append(contentsOf: UTF8.encode(unicode)!)
            default:
                throw error("invalid escape in a string")
            }
        }

        mutating func hex4() throws(JSONError) -> UInt16 {
            guard bytes.count - index >= 4 else { throw error("a \\u escape needs four hex digits") }
            var value: UInt16 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw error("a \\u escape needs four hex digits")
                }
                value = value << 4 | UInt16(digit)
                index += 1
            }
            return value
        }
    }
}
