import Basics

/// Writes compact JSON text into a byte buffer.
///
/// Low-level appends (`appendString`, `appendRaw`) let encoders write without building a `JSONValue` first.
public struct JSONWriter: Sendable {
    /// The text written so far (UTF-8).
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 128) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Appends `value`.
    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: appendRaw("null")
        case .bool(let flag): appendRaw(flag ? "true" : "false")
        case .number(let text): bytes.append(contentsOf: text.utf8)
        case .string(let text): appendString(text)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                write(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (i, member) in members.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                appendString(member.key)
                bytes.append(UInt8(ascii: ":"))
                write(member.value)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `text` as a quoted JSON string, escaping quotes, backslashes and control characters.
    public mutating func appendString(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            // Nothing to escape (the usual case): copy the bytes at once.
            bytes.append(contentsOf: text.utf8)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
            case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
            case 0x0A: appendRaw("\\n")
            case 0x0D: appendRaw("\\r")
            case 0x09: appendRaw("\\t")
            case 0..<0x20:
                appendRaw("\\u00")
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends `text` as it is: the caller vouches that it is valid JSON in place.
    public mutating func appendRaw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends bytes as they are: the caller vouches that they are valid JSON in place.
    public mutating func appendRaw(_ text: some Sequence<UInt8>) {
        bytes.append(contentsOf: text)
    }

    /// Appends `raw` as a quoted string of standard, padded base64 (the proto3 JSON form of `bytes`).
    mutating func appendBase64String(_ raw: UnsafeRawBufferPointer) {
        bytes.append(UInt8(ascii: "\""))
        Base64.standard.append(raw, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
