/// A reader of DER with single-byte tags: enough for X.509 certificates and receipt payloads.
///
/// It reads DER only, never BER: a length is definite and in its shortest form (one octet below 128, otherwise
/// `0x80 | n` and `n` octets without a leading zero). It never copies: every element it returns is a slice of the
/// input.
public struct DERReader: Sendable {
    /// One element: its tag, its contents, and the whole encoding (header included).
    public struct Element: Sendable {
        public var tag: UInt8
        public var contents: ArraySlice<UInt8>
        public var encoded: ArraySlice<UInt8>
    }

    /// Why the next element is not DER.
    public struct Malformed: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
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
    public mutating func readElement() -> Element? { try? element() }

    /// Reads the next element, whatever its tag; throws (and consumes nothing) when it is not DER.
    public mutating func element() throws(Malformed) -> Element {
        guard position < bytes.endIndex else { throw Malformed("no element") }
        guard position + 2 <= bytes.endIndex else { throw Malformed("truncated header") }
        let tag = bytes[position]
        // Multi-byte tags (low five bits all set) do not occur in the structures read here.
        guard tag & 0x1f != 0x1f else { throw Malformed("multi-byte tag") }
        var cursor = position + 1
        var length = Int(bytes[cursor])
        cursor += 1
        if length & 0x80 != 0 {
            let width = length & 0x7f
            guard width != 0 else { throw Malformed("indefinite length") }
            guard width <= 4 else { throw Malformed("length of \(width) octets") }
            guard cursor + width <= bytes.endIndex else { throw Malformed("truncated length") }
            guard bytes[cursor] != 0 else { throw Malformed("length with a leading zero octet") }
            length = bytes[cursor..<cursor + width].reduce(0) { $0 << 8 | Int($1) }
            guard length >= 0x80 else { throw Malformed("long-form length \(length), below 128") }
            cursor += width
        }
        guard length <= bytes.endIndex - cursor else {
            throw Malformed("length \(length) past the end (\(bytes.endIndex - cursor) bytes left)")
        }
        let start = position
        position = cursor + length
        return Element(tag: tag, contents: bytes[cursor..<position], encoded: bytes[start..<position])
    }

    /// Reads the next element if it has tag `tag` and returns its contents.
    public mutating func read(tag: UInt8) -> ArraySlice<UInt8>? {
        guard nextTag == tag else { return nil }
        return readElement()?.contents
    }

    /// Reads a non-negative INTEGER that fits an `Int`, in its shortest form.
    public mutating func readSmallInteger() -> Int? {
        guard let content = read(tag: 0x02), Self.isMinimalInteger(content), content.count <= 7,
              content.first! & 0x80 == 0
        else { return nil }
        return content.reduce(0) { $0 << 8 | Int($1) }
    }

    /// True when `content` is an INTEGER's contents in DER: at least one octet, and no first octet (0x00 or 0xFF)
    /// that only repeats the sign of the next.
    public static func isMinimalInteger(_ content: ArraySlice<UInt8>) -> Bool {
        guard let first = content.first else { return false }
        guard content.count > 1 else { return true }
        let second = content[content.startIndex + 1]
        return !(first == 0x00 && second & 0x80 == 0) && !(first == 0xff && second & 0x80 != 0)
    }

    /// True when `content` is an OBJECT IDENTIFIER's contents as OpenSSL and DER accept them: not empty, the last
    /// octet ends its arc, and no arc starts with the padding octet 0x80.
    public static func isValidObjectIdentifier(_ content: ArraySlice<UInt8>) -> Bool {
        guard !content.isEmpty, content.last! & 0x80 == 0 else { return false }
        var startsArc = true
        for byte in content {
            if startsArc && byte == 0x80 { return false }
            startsArc = byte & 0x80 == 0
        }
        return true
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
        guard isValidObjectIdentifier(content) else { return nil }
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
