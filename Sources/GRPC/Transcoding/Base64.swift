/// Base64 as the proto3 JSON mapping uses it for `bytes`: written standard and padded (the iOS SDK accepts
/// nothing else), read in the standard or URL-safe alphabet, padded or not.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// 0…63 for both alphabets' characters, 0xFF for anything else.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = UInt8(i) }
        table[Int(UInt8(ascii: "-"))] = 62
        table[Int(UInt8(ascii: "_"))] = 63
        return table
    }()

    /// Appends the standard, padded encoding of `bytes`.
    static func encode(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        let start = out.count
        let length = (bytes.count + 2) / 3 * 4
        // Grow once, then fill through a pointer: appending byte by byte costs more than the encoding.
        out.append(contentsOf: repeatElement(UInt8(ascii: "="), count: length))
        alphabet.withUnsafeBufferPointer { alphabet in
            out.withUnsafeMutableBufferPointer { buffer in
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
                let rest = bytes.count - i
                if rest > 0 {
                    let n = UInt32(bytes[i]) << 16 | (rest == 2 ? UInt32(bytes[i + 1]) << 8 : 0)
                    buffer[o] = alphabet[Int(n >> 18 & 63)]
                    buffer[o + 1] = alphabet[Int(n >> 12 & 63)]
                    if rest == 2 { buffer[o + 2] = alphabet[Int(n >> 6 & 63)] }  // the rest stays "="
                }
            }
        }
    }

    /// The standard, padded encoding of `bytes`.
    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        bytes.withUnsafeBytes { encode($0, into: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes `text` encodes, or nil when it is not base64 in either alphabet (padding optional, but correct
    /// when present).
    static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode($0) }
    }

    /// The bytes `input` encodes, or nil; see ``decode(_:)-(String)``.
    static func decode(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var count = input.count
        if count % 4 == 0, count > 0, input[count - 1] == UInt8(ascii: "=") {
            count -= 1
            if input[count - 1] == UInt8(ascii: "=") { count -= 1 }
        }
        let remainder = count % 4
        guard remainder != 1 else { return nil }
        let outCount = count / 4 * 3 + (remainder == 0 ? 0 : remainder - 1)
        // Empty input, empty output. Not through `unsafeUninitializedCapacity`: with capacity 0 it sets the count of
        // the runtime's shared empty array, a write that races with every other thread doing the same (TSan saw it).
        guard outCount > 0 else { return [] }
        var valid = true
        let out = [UInt8](unsafeUninitializedCapacity: outCount) { out, initialized in
            values.withUnsafeBufferPointer { table in
                var i = 0
                var o = 0
                while i + 4 <= count {
                    let a = table[Int(input[i])], b = table[Int(input[i + 1])]
                    let c = table[Int(input[i + 2])], d = table[Int(input[i + 3])]
                    // Valid values are below 64; 0xFF marks anything else.
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
                // Leftover bits must be zero, so that each byte string has exactly one encoding.
                if (a | b | c) & 0xC0 != 0 || (remainder == 2 ? b & 0x0F : c & 0x03) != 0 { valid = false; return }
                let n = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6
                out[o] = UInt8(truncatingIfNeeded: n >> 16)
                if remainder == 3 { out[o + 1] = UInt8(truncatingIfNeeded: n >> 8) }
            }
            initialized = valid ? outCount : 0
        }
        return valid ? out : nil
    }
}
