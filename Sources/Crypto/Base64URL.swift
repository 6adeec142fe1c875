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
    /// Grows `output` once and writes through pointers: appending byte by byte checked capacity, uniqueness and the
    /// alphabet's bounds four times per three bytes, on every token minted.
    public static func append(_ bytes: some ContiguousBytes, to output: inout [UInt8]) {
        bytes.withUnsafeBytes { input in
            let start = output.count
            let encodedCount = (input.count * 4 + 2) / 3
            output.append(contentsOf: repeatElement(0, count: encodedCount))
            output.withUnsafeMutableBufferPointer { buffer in
                alphabet.withUnsafeBufferPointer { alphabet in
                    var out = buffer.baseAddress! + start
                    var index = 0
                    while index + 3 <= input.count {
                        let value = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                        out[0] = alphabet[Int(value >> 18 & 63)]
                        out[1] = alphabet[Int(value >> 12 & 63)]
                        out[2] = alphabet[Int(value >> 6 & 63)]
                        out[3] = alphabet[Int(value & 63)]
                        out += 4
                        index += 3
                    }
                    // The last one or two bytes make two or three characters (no padding).
                    let left = input.count - index
                    guard left > 0 else { return }
                    let value = UInt32(input[index]) << 16 | (left == 2 ? UInt32(input[index + 1]) << 8 : 0)
                    out[0] = alphabet[Int(value >> 18 & 63)]
                    out[1] = alphabet[Int(value >> 12 & 63)]
                    if left == 2 { out[2] = alphabet[Int(value >> 6 & 63)] }
                }
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
