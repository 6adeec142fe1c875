/// One form of base64 (RFC 4648): the alphabet it reads and writes, what it does with padding, and whether the
/// unused bits of the last character must be zero. Decoding never skips anything: no whitespace, no stray
/// characters.
public struct Base64: Sendable {
    /// The characters for the values 62 and 63.
    public enum Alphabet: Sendable {
        /// `+` and `/` (RFC 4648 §4).
        case standard
        /// `-` and `_` (RFC 4648 §5).
        case urlSafe
        /// Either pair, even mixed, when reading; `+` and `/` when writing.
        case either
    }

    /// What the trailing `=` characters must be.
    public enum Padding: Sendable {
        /// Written, and required when reading: the text's length is a multiple of 4.
        case required
        /// Written; when reading, absent or complete (the text then ends on a multiple of 4).
        case optional
        /// Never written, and refused when reading.
        case refused
    }

    /// What decoding does with the bits of the last character that complete no byte (2 or 4 of them).
    public enum LeftoverBits: Sendable {
        /// They must be zero, so that each byte string has exactly one accepted text (RFC 4648 §3.5).
        case zero
        /// Ignored, as Foundation's `Data(base64Encoded:)` and OpenSSL read base64.
        case ignored
    }

    public let alphabet: Alphabet
    public let padding: Padding
    public let leftoverBits: LeftoverBits

    public init(alphabet: Alphabet, padding: Padding, leftoverBits: LeftoverBits = .zero) {
        self.alphabet = alphabet
        self.padding = padding
        self.leftoverBits = leftoverBits
    }

    /// RFC 4648 §4 as Foundation reads and writes it: `+/`, padded, leftover bits ignored. Apple's receipts and
    /// device tokens, PEM bodies, key files: texts from trusted tools, never signed as text, read as they always were.
    public static let standard = Base64(alphabet: .standard, padding: .required, leftoverBits: .ignored)

    /// Base64url without padding (RFC 7515 §2): every JWS part and JWK member. A JWS has exactly one encoding of
    /// each part, so padding, the standard alphabet and non-zero leftover bits are refused.
    public static let url = Base64(alphabet: .urlSafe, padding: .refused)

    /// What proto3's JSON mapping reads for `bytes`, and what the command-line tools take: either alphabet,
    /// padding optional, leftover bits zero. Writes standard and padded, the only form the iOS SDK reads.
    public static let either = Base64(alphabet: .either, padding: .optional)
}

extension Base64 {
    /// The text of `bytes` in this form.
    public func encode(_ bytes: some Sequence<UInt8>) -> String {
        var output: [UInt8] = []
        append(bytes, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends the text of `bytes` in this form to `output`, for callers assembling a token or a JSON document in
    /// one buffer.
    public func append(_ bytes: some Sequence<UInt8>, to output: inout [UInt8]) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { append(UnsafeRawBufferPointer($0), to: &output) }
        guard done == nil else { return }
        Array(bytes).withUnsafeBytes { append($0, to: &output) }
    }

    /// Appends the text of `bytes` in this form to `output`. Grows `output` once and writes through pointers:
    /// appending byte by byte checks capacity, uniqueness and the alphabet's bounds four times per three bytes, and
    /// this runs for every `bytes` field a JSON response carries and every token minted.
    public func append(_ bytes: UnsafeRawBufferPointer, to output: inout [UInt8]) {
        let padded = padding != .refused
        let start = output.count
        let length = padded ? (bytes.count + 2) / 3 * 4 : (bytes.count * 4 + 2) / 3
        guard length > 0 else { return }
        output.append(contentsOf: repeatElement(UInt8(ascii: "="), count: length))
        let characters = alphabet == .urlSafe ? Self.urlSafeCharacters : Self.standardCharacters
        characters.withUnsafeBufferPointer { alphabet in
            output.withUnsafeMutableBufferPointer { buffer in
                var o = start
                var i = 0
                while i + 3 <= bytes.count {
                    let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
                    buffer[o] = alphabet[Int(n >> 18 & 63)]
                    buffer[o + 1] = alphabet[Int(n >> 12 & 63)]
                    buffer[o + 2] = alphabet[Int(n >> 6 & 63)]
                    buffer[o + 3] = alphabet[Int(n & 63)]
                    i += 3
                    o += 4
                }
                // The last one or two bytes make two or three characters; the padding, if any, is already there.
                let rest = bytes.count - i
                guard rest > 0 else { return }
                let n = UInt32(bytes[i]) << 16 | (rest == 2 ? UInt32(bytes[i + 1]) << 8 : 0)
                buffer[o] = alphabet[Int(n >> 18 & 63)]
                buffer[o + 1] = alphabet[Int(n >> 12 & 63)]
                if rest == 2 { buffer[o + 2] = alphabet[Int(n >> 6 & 63)] }
            }
        }
    }

    /// The bytes `text` encodes in this form, or nil when it is not strictly that.
    public func decode(_ text: some StringProtocol) -> [UInt8]? {
        if let decoded = text.utf8.withContiguousStorageIfAvailable({ decode($0) }) { return decoded }
        var text = String(text)
        return text.withUTF8 { decode($0) }
    }

    /// The bytes UTF-8 `text` encodes in this form, or nil when it is not strictly that.
    public func decode(utf8 text: ArraySlice<UInt8>) -> [UInt8]? {
        text.withUnsafeBufferPointer { decode($0) }
    }

    /// The bytes UTF-8 `input` encodes in this form, or nil when it is not strictly that.
    public func decode(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var count = input.count
        if padding != .refused, count % 4 == 0, count > 0, input[count - 1] == UInt8(ascii: "=") {
            count -= 1
            if input[count - 1] == UInt8(ascii: "=") { count -= 1 }
        } else if padding == .required, count % 4 != 0 {
            return nil
        }
        let remainder = count % 4
        guard remainder != 1 else { return nil }
        let outCount = count / 4 * 3 + (remainder == 0 ? 0 : remainder - 1)
        // Empty input, empty output. Not through `unsafeUninitializedCapacity`: with capacity 0 it sets the count of
        // the runtime's shared empty array, a write that races with every other thread doing the same (TSan saw it).
        guard outCount > 0 else { return [] }
        let values = switch alphabet {
        case .standard: Self.standardValues
        case .urlSafe: Self.urlSafeValues
        case .either: Self.eitherValues
        }
        let leftoverMask: UInt8 = leftoverBits == .zero ? 0xFF : 0
        var valid = true
        let out = [UInt8](unsafeUninitializedCapacity: outCount) { out, initialized in
            values.withUnsafeBufferPointer { table in
                var i = 0
                var o = 0
                while i + 4 <= count {
                    let a = table[Int(input[i])], b = table[Int(input[i + 1])]
                    let c = table[Int(input[i + 2])], d = table[Int(input[i + 3])]
                    // Valid values are below 64; 0xFF marks anything else, `=` included.
                    if (a | b | c | d) & 0xC0 != 0 { valid = false; return }
                    let n = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    out[o] = UInt8(truncatingIfNeeded: n >> 16)
                    out[o + 1] = UInt8(truncatingIfNeeded: n >> 8)
                    out[o + 2] = UInt8(truncatingIfNeeded: n)
                    i += 4
                    o += 3
                }
                guard remainder > 0 else { return }
                let a = table[Int(input[i])], b = table[Int(input[i + 1])]
                let c = remainder == 3 ? table[Int(input[i + 2])] : 0
                if (a | b | c) & 0xC0 != 0 || (remainder == 2 ? b & 0x0F : c & 0x03) & leftoverMask != 0 {
                    valid = false
                    return
                }
                let n = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6
                out[o] = UInt8(truncatingIfNeeded: n >> 16)
                if remainder == 3 { out[o + 1] = UInt8(truncatingIfNeeded: n >> 8) }
            }
            initialized = valid ? outCount : 0
        }
        return valid ? out : nil
    }

    private static let standardCharacters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlSafeCharacters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// 0…63 for the characters of an alphabet, 0xFF for anything else.
    private static func values(_ alphabets: [[UInt8]]) -> [UInt8] {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for characters in alphabets {
            for (value, character) in characters.enumerated() { table[Int(character)] = UInt8(value) }
        }
        return table
    }

    private static let standardValues = values([standardCharacters])
    private static let urlSafeValues = values([urlSafeCharacters])
    private static let eitherValues = values([standardCharacters, urlSafeCharacters])
}
