/// A reader of BER as CMS messages use it: definite and indefinite lengths, constructed strings, single-byte tags.
struct BERReader {
    struct Element {
        var tag: UInt8
        /// The contents (for an indefinite length: up to, not including, the end-of-contents octets).
        var contents: ArraySlice<UInt8>
        /// The whole encoding, header (and end-of-contents) included.
        var encoded: ArraySlice<UInt8>
        var isConstructed: Bool { tag & 0x20 != 0 }
    }

    private let bytes: ArraySlice<UInt8>
    private var position: Int
    private static let maximumDepth = 16

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.position = bytes.startIndex
    }

    var isAtEnd: Bool { position == bytes.endIndex }
    var nextTag: UInt8? { position < bytes.endIndex ? bytes[position] : nil }

    mutating func readElement() -> Element? {
        guard let element = Self.element(in: bytes, at: position, depth: 0) else { return nil }
        position = element.encoded.endIndex
        return element
    }

    mutating func read(tag: UInt8) -> Element? {
        guard nextTag == tag else { return nil }
        return readElement()
    }

    /// The children of a constructed element.
    static func children(of element: Element) -> [Element]? {
        var reader = BERReader(element.contents)
        var children: [Element] = []
        while !reader.isAtEnd {
            guard let child = reader.readElement() else { return nil }
            children.append(child)
        }
        return children
    }

    /// The bytes of an OCTET STRING, primitive (0x04) or constructed from chunks (0x24), reassembled.
    static func octets(of element: Element, depth: Int = 0) -> [UInt8]? {
        switch element.tag {
        case 0x04: return Array(element.contents)
        case 0x24:
            guard depth < maximumDepth, let chunks = children(of: element) else { return nil }
            var output: [UInt8] = []
            for chunk in chunks {
                guard let part = octets(of: chunk, depth: depth + 1) else { return nil }
                output += part
            }
            return output
        default: return nil
        }
    }

    private static func element(in bytes: ArraySlice<UInt8>, at start: Int, depth: Int) -> Element? {
        guard depth < maximumDepth, start + 2 <= bytes.endIndex else { return nil }
        let tag = bytes[start]
        guard tag & 0x1f != 0x1f else { return nil }
        var cursor = start + 1
        let first = Int(bytes[cursor])
        cursor += 1
        if first == 0x80 {
            // Indefinite: only for constructed encodings; children follow until the end-of-contents octets.
            guard tag & 0x20 != 0 else { return nil }
            let contentStart = cursor
            while true {
                guard cursor + 2 <= bytes.endIndex else { return nil }
                if bytes[cursor] == 0, bytes[cursor + 1] == 0 {
                    return Element(
                        tag: tag, contents: bytes[contentStart..<cursor], encoded: bytes[start..<cursor + 2])
                }
                guard let child = element(in: bytes, at: cursor, depth: depth + 1) else { return nil }
                cursor = child.encoded.endIndex
            }
        }
        var length = first
        if first & 0x80 != 0 {
            let width = first & 0x7f
            guard (1...4).contains(width), cursor + width <= bytes.endIndex else { return nil }
            length = bytes[cursor..<cursor + width].reduce(0) { $0 << 8 | Int($1) }
            cursor += width
        }
        guard length <= bytes.endIndex - cursor else { return nil }
        return Element(tag: tag, contents: bytes[cursor..<cursor + length], encoded: bytes[start..<cursor + length])
    }
}
