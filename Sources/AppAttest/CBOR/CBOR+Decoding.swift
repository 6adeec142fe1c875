extension CBOR {
    /// Bounds on what the decoder accepts, so that hostile input cannot make it allocate or recurse without limit.
    public struct Limits: Sendable {
        /// The most bytes an input may have.
        public var maximumBytes: Int
        /// The deepest nesting of arrays and maps (a top-level map is depth 1).
        public var maximumDepth: Int
        /// The most elements (or map entries) one array or map may declare.
        public var maximumContainerCount: Int
        /// The most data items in the whole input.
        public var maximumItems: Int

        public init(maximumBytes: Int, maximumDepth: Int, maximumContainerCount: Int, maximumItems: Int) {
            self.maximumBytes = maximumBytes
            self.maximumDepth = maximumDepth
            self.maximumContainerCount = maximumContainerCount
            self.maximumItems = maximumItems
        }

        /// Generous for App Attest objects (about 6 KB, depth 3, a few dozen items) and small for anything else.
        public static let appAttest = Limits(
            maximumBytes: 64 * 1024, maximumDepth: 8, maximumContainerCount: 64, maximumItems: 512)
    }

    /// Why some bytes are not acceptable CBOR, and where.
    public struct DecodingError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The byte offset at which decoding stopped.
        public var offset: Int
        /// What was wrong there.
        public var message: String
        public var description: String { "\(message) at byte \(offset)" }
    }

    /// Decodes exactly one data item filling all of `bytes`; trailing bytes are an error.
    public static func decode(_ bytes: [UInt8], limits: Limits = .appAttest) throws(DecodingError) -> CBOR {
        let (item, end) = try decodePrefix(bytes[...], limits: limits)
        guard end == bytes.endIndex else {
            throw DecodingError(offset: end, message: "\(bytes.endIndex - end) trailing bytes after the data item")
        }
        return item
    }

    /// Decodes the data item at the start of `bytes` and returns it with the index just after it, for formats that
    /// place CBOR items back to back (authenticator data: COSE key, then extensions).
    public static func decodePrefix(
        _ bytes: ArraySlice<UInt8>, limits: Limits = .appAttest
    ) throws(DecodingError) -> (CBOR, end: Int) {
        guard bytes.count <= limits.maximumBytes else {
            throw DecodingError(offset: bytes.startIndex, message: "input of \(bytes.count) bytes exceeds the limit")
        }
        var reader = Reader(bytes: bytes, limits: limits)
        let item = try reader.item(depth: 0)
        return (item, reader.position)
    }

    private struct Reader {
        let bytes: ArraySlice<UInt8>
        let limits: Limits
        var position: Int
        var items = 0

        init(bytes: ArraySlice<UInt8>, limits: Limits) {
            self.bytes = bytes
            self.limits = limits
            self.position = bytes.startIndex
        }

        var remaining: Int { bytes.endIndex - position }

        func fail(_ message: String) -> DecodingError { DecodingError(offset: position, message: message) }

        mutating func byte() throws(DecodingError) -> UInt8 {
            guard position < bytes.endIndex else { throw fail("truncated") }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func take(_ count: UInt64) throws(DecodingError) -> ArraySlice<UInt8> {
            guard count <= UInt64(remaining) else { throw fail("a string of \(count) bytes runs past the end") }
            let start = position
            position += Int(count)
            return bytes[start..<position]
        }

        /// The argument of an initial byte: the value itself below 24, else the 1, 2, 4 or 8 bytes that follow.
        mutating func argument(_ info: UInt8) throws(DecodingError) -> UInt64 {
            switch info {
            case 0..<24: return UInt64(info)
            case 24, 25, 26, 27:
                let width = 1 << Int(info - 24)
                var value: UInt64 = 0
                for _ in 0..<width { value = value << 8 | UInt64(try byte()) }
                return value
            case 31: throw fail("indefinite lengths are not accepted")
            default: throw fail("reserved additional information \(info)")
            }
        }

        mutating func item(depth: Int) throws(DecodingError) -> CBOR {
            items += 1
            guard items <= limits.maximumItems else { throw fail("more than \(limits.maximumItems) data items") }
            let initial = try byte()
            let major = initial >> 5, info = initial & 0x1f
            switch major {
            case 0: return .unsigned(try argument(info))
            case 1: return .negative(try argument(info))
            case 2: return .bytes(Array(try take(try argument(info))))
            case 3:
                let start = position
                let utf8 = try take(try argument(info))
                guard let text = String(validating: utf8, as: UTF8.self) else {
                    position = start
                    throw fail("a text string that is not UTF-8")
                }
                return .text(text)
            case 4, 5:
                let count = try argument(info)
                guard depth + 1 <= limits.maximumDepth else { throw fail("nesting deeper than \(limits.maximumDepth)") }
                guard count <= UInt64(limits.maximumContainerCount) else {
                    throw fail("a container of \(count) entries exceeds the limit")
                }
                // Each element takes at least one byte: refuse impossible counts before reserving anything.
                guard count * (major == 5 ? 2 : 1) <= UInt64(remaining) else { throw fail("truncated container") }
                if major == 4 {
                    var elements: [CBOR] = []
                    elements.reserveCapacity(Int(count))
                    for _ in 0..<count { elements.append(try item(depth: depth + 1)) }
                    return .array(elements)
                }
                var entries: [MapEntry] = []
                entries.reserveCapacity(Int(count))
                for _ in 0..<count {
                    let keyOffset = position
                    let key = try item(depth: depth + 1)
                    guard !entries.contains(where: { $0.key == key }) else {
                        throw DecodingError(offset: keyOffset, message: "duplicate map key")
                    }
                    entries.append(MapEntry(key: key, value: try item(depth: depth + 1)))
                }
                return .map(entries)
            case 6: throw fail("tags are not accepted")
            default:
                switch info {
                case 20: return .boolean(false)
                case 21: return .boolean(true)
                case 22: return .null
                default: throw fail("simple value or float \(info) is not accepted")
                }
            }
        }
    }
}
