/// A reader of definite-length DER with single-byte tags: enough for X.509 certificates and receipt payloads.
///
/// It never copies: every element it returns is a slice of the input.
public struct DERReader: Sendable {
    /// One element: its tag, its contents, and the whole encoding (header included).
    public struct Element: Sendable {
        public var tag: UInt8
        public var contents: ArraySlice<UInt8>
        public var encoded: ArraySlice<UInt8>
    }

    private let bytes: ArraySlice<UInt8>
    private var position: Int

    public init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.position = bytes.startIndex
    }

    /// True when every byte has been read.
    public var isAtEnd: Bool { position == bytes.endIndex }

    /// The tag of the next element, without reading it.
    public var nextTag: UInt8? { position < bytes.endIndex ? bytes[position] : nil }

    /// Reads the next element, whatever its tag; nil (and nothing consumed) when it is not well formed.
    public mutating func readElement() -> Element? {
        guard position + 2 <= bytes.endIndex else { return nil }
        let tag = bytes[position]
        // Multi-byte tags (low five bits all set) do not occur in the structures read here.
        guard tag & 0x1f != 0x1f else { return nil }
        var cursor = position + 1
        var length = Int(bytes[cursor])
        cursor += 1
        if length & 0x80 != 0 {
            let width = length & 0x7f
            // 0x80 alone is BER's indefinite length, which DER forbids.
            guard (1...4).contains(width), cursor + width <= bytes.endIndex else { return nil }
            length = bytes[cursor..<cursor + width].reduce(0) { $0 << 8 | Int($1) }
            cursor += width
        }
        guard length <= bytes.endIndex - cursor else { return nil }
        let start = position
        position = cursor + length
        return Element(tag: tag, contents: bytes[cursor..<position], encoded: bytes[start..<position])
    }

    /// Reads the next element if it has tag `tag` and returns its contents.
    public mutating func read(tag: UInt8) -> ArraySlice<UInt8>? {
        guard nextTag == tag else { return nil }
        return readElement()?.contents
    }

    /// Reads a non-negative INTEGER that fits an `Int`.
    public mutating func readSmallInteger() -> Int? {
        guard let content = read(tag: 0x02), !content.isEmpty, content.count <= 7, content.first! & 0x80 == 0 else {
            return nil
        }
        return content.reduce(0) { $0 << 8 | Int($1) }
    }

    /// Reads an OBJECT IDENTIFIER and returns it in dotted form.
    public mutating func readObjectIdentifier() -> String? {
        guard let content = read(tag: 0x06) else { return nil }
        return Self.dotted(content)
    }

    /// The contents of the OBJECT IDENTIFIER `dotted` (`1.2.840.10045.2.1`), or nil when it is not one.
    public static func objectIdentifierContents(_ dotted: String) -> [UInt8]? {
        let arcs = dotted.split(separator: ".").map { UInt64($0) }
        guard arcs.count >= 2, let first = arcs[0], let second = arcs[1], first <= 2, first == 2 || second < 40,
              arcs.allSatisfy({ $0 != nil })
        else { return nil }
        var output: [UInt8] = []
        for arc in [first * 40 + second] + arcs.dropFirst(2).map({ $0! }) {
            var chunk: [UInt8] = [UInt8(arc & 0x7f)]
            var rest = arc >> 7
            while rest > 0 {
                chunk.append(UInt8(rest & 0x7f) | 0x80)
                rest >>= 7
            }
            output += chunk.reversed()
        }
        return output
    }

    /// The dotted form of the contents of an OBJECT IDENTIFIER.
    public static func dotted(_ content: ArraySlice<UInt8>) -> String? {
        guard !content.isEmpty, content.last! & 0x80 == 0 else { return nil }
        var arcs: [UInt64] = []
        var value: UInt64 = 0
        for byte in content {
            guard value >> 57 == 0 else { return nil }
            value = value << 7 | UInt64(byte & 0x7f)
            if byte & 0x80 == 0 {
                arcs.append(value)
                value = 0
            }
        }
        let first = arcs.removeFirst()
        let head = first < 40 ? [0, first] : first < 80 ? [1, first - 40] : [2, first - 80]
        return (head + arcs).map(String.init).joined(separator: ".")
    }
}
