extension GRPCStatus {
    /// `message` percent-encoded for the `grpc-message` header, as the gRPC HTTP/2 spec requires: bytes of its
    /// UTF-8 outside 0x20…0x7E, and `%` itself, become `%XX`.
    public var encodedMessage: String { Self.percentEncode(message) }

    /// Percent-encodes `text` for `grpc-message`.
    public static func percentEncode(_ text: String) -> String {
        let utf8 = text.utf8
        if utf8.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E && $0 != UInt8(ascii: "%") }) { return text }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count + 16)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in utf8 {
            if byte >= 0x20 && byte <= 0x7E && byte != UInt8(ascii: "%") {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes a received `grpc-message`. A `%` not followed by two hex digits is kept as it is, as the spec asks
    /// of receivers; bytes that do not form UTF-8 become U+FFFD.
    public static func percentDecode(_ text: String) -> String {
        let bytes = Array(text.utf8)
        guard bytes.contains(UInt8(ascii: "%")) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count,
               let high = HexDigit.value(bytes[i + 1]), let low = HexDigit.value(bytes[i + 2]) {
                out.append(high << 4 | low)
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

}
