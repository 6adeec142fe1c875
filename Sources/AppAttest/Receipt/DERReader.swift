/// A minimal reader of definite-length DER, enough for the receipt payload once OpenSSL has reassembled it.
struct DERReader {
    private let bytes: ArraySlice<UInt8>
    private var position: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.position = bytes.startIndex
    }

    var isAtEnd: Bool { position == bytes.endIndex }

    /// Reads one element with the single-byte tag `tag` and returns its contents.
    mutating func read(tag: UInt8) -> ArraySlice<UInt8>? {
        guard position + 2 <= bytes.endIndex, bytes[position] == tag else { return nil }
        var cursor = position + 1
        var length = Int(bytes[cursor])
        cursor += 1
        if length & 0x80 != 0 {
            let width = length & 0x7f
            guard (1...4).contains(width), cursor + width <= bytes.endIndex else { return nil }
            length = bytes[cursor..<cursor + width].reduce(0) { $0 << 8 | Int($1) }
            cursor += width
        }
        guard length <= bytes.endIndex - cursor else { return nil }
        position = cursor + length
        return bytes[cursor..<cursor + length]
    }

    /// Reads a non-negative INTEGER that fits an `Int`.
    mutating func readSmallInteger() -> Int? {
        guard let content = read(tag: 0x02), !content.isEmpty, content.count <= 7, content.first! & 0x80 == 0 else {
            return nil
        }
        return content.reduce(0) { $0 << 8 | Int($1) }
    }
}
