/// Base64url without padding (RFC 7515 §2), the encoding of every JWS part and JWK member.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let reverse: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = UInt8(index) }
        return table
    }()

    /// The unpadded base64url text of `bytes`.
    public static func encode(_ bytes: some ContiguousBytes) -> String {
        var output = [UInt8]()
        append(bytes, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends the unpadded base64url text of `bytes` to `output`, for callers assembling a token in one buffer.
    public static func append(_ bytes: some ContiguousBytes, to output: inout [UInt8]) {
        bytes.withUnsafeBytes { input in
            output.reserveCapacity(output.count + (input.count * 4 + 2) / 3)
            var index = 0
            while index + 3 <= input.count {
                let value = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                output.append(alphabet[Int(value >> 18 & 63)])
                output.append(alphabet[Int(value >> 12 & 63)])
                output.append(alphabet[Int(value >> 6 & 63)])
                output.append(alphabet[Int(value & 63)])
                index += 3
            }
            switch input.count - index {
            case 1:
                let value = UInt32(input[index]) << 16
                output.append(alphabet[Int(value >> 18 & 63)])
                output.append(alphabet[Int(value >> 12 & 63)])
            case 2:
                let value = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
                output.append(alphabet[Int(value >> 18 & 63)])
                output.append(alphabet[Int(value >> 12 & 63)])
                output.append(alphabet[Int(value >> 6 & 63)])
            default: break
            }
        }
    }

    /// The bytes of unpadded base64url `text`, or nil if it holds any other character, padding, or an impossible
    /// length. Strict on purpose: a JWS has exactly one encoding of each part.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        decode(utf8: Array(text.utf8)[...])
    }

    /// The bytes of unpadded base64url text given as UTF-8, or nil when it is not strictly that.
    public static func decode(utf8 text: ArraySlice<UInt8>) -> [UInt8]? {
        guard text.count % 4 != 1 else { return nil }
        var output = [UInt8]()
        output.reserveCapacity(text.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for character in text {
            let value = reverse[Int(character)]
            guard value != 0xFF else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // Leftover bits must be zero, or two texts would decode to the same bytes.
        guard accumulator & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return output
    }
}
