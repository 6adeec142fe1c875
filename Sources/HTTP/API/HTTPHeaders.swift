/// An ordered list of header fields. Names are stored lowercased (HTTP/2 requires it; HTTP/1.1 names are
/// case-insensitive), values as received. Repeated names are kept as separate entries, in order.
public struct HTTPHeaders: Sendable, Sequence {
    public typealias Element = (name: String, value: String)

    private var fields: [Element]

    /// Creates headers from `(name, value)` pairs; names are lowercased.
    public init(_ pairs: [(String, String)] = []) {
        fields = pairs.map { (name: $0.0.lowercased(), value: $0.1) }
    }

    /// Headers whose names are already lowercase (HTTP/2 guarantees it): skips the lowercasing pass.
    init(lowercased fields: [Element]) {
        self.fields = fields
    }

    /// The value of the first field named `name` (matched case-insensitively), or nil.
    public subscript(name: String) -> String? {
        let key = Self.isLowercase(name) ? name : name.lowercased()
        return fields.first { $0.name == key }?.value
    }

    /// Appends a field; `name` is lowercased.
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: Self.isLowercase(name) ? name : name.lowercased(), value: value))
    }

    /// The number of fields.
    public var count: Int { fields.count }

    public func makeIterator() -> IndexingIterator<[Element]> { fields.makeIterator() }

    /// Over the contiguous UTF-8 when the string has it (every native string): the generic walk over `utf8`
    /// cost about 35 instructions a byte, on every lookup of every request.
    private static func isLowercase(_ name: String) -> Bool {
        func hasUpper(_ bytes: some Sequence<UInt8>) -> Bool {
            bytes.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
        }
        return !(name.utf8.withContiguousStorageIfAvailable(hasUpper) ?? hasUpper(name.utf8))
    }
}
