/// Appends JSON text straight into a byte buffer, for the token claims built on every exchange.
enum JSONBytes {
    /// Appends `value` as a quoted JSON string (RFC 8259 §7): `"` and `\` escaped, control characters as `\u00XX`,
    /// everything else copied as UTF-8.
    static func appendString(_ value: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        appendEscaped(value, to: &output)
        output.append(UInt8(ascii: "\""))
    }

    /// Appends `prefix` followed by `value` as one quoted JSON string, without building the concatenation.
    static func appendString(_ prefix: String, _ value: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        appendEscaped(prefix, to: &output)
        appendEscaped(value, to: &output)
        output.append(UInt8(ascii: "\""))
    }

    private static func appendEscaped(_ value: String, to output: inout [UInt8]) {
        var value = value
        value.withUTF8 { bytes in
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                    output.append(UInt8(ascii: "\\"))
                    output.append(byte)
                case 0..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    output.append(contentsOf: Array("\\u00".utf8))
                    output.append(hex[Int(byte >> 4)])
                    output.append(hex[Int(byte & 0xF)])
                default:
                    output.append(byte)
                }
            }
        }
    }

    /// Appends `value` as a JSON number.
    static func appendInteger(_ value: Int64, to output: inout [UInt8]) {
        if value < 0 { output.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        // Digits are made last first, into a scratch buffer on the stack (20 fit any Int64).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            output.append(contentsOf: UnsafeMutableBufferPointer(rebasing: digits[start...]))
        }
    }

    /// Appends text that needs no escaping (JSON punctuation and names we wrote ourselves).
    static func appendRaw(_ text: StaticString, to output: inout [UInt8]) {
        text.withUTF8Buffer { output.append(contentsOf: $0) }
    }
}
