/// A DER encoding taken apart into its elements, to be changed and put back together with the lengths recomputed:
/// how the strict-DER tests make malformed certificates out of real ones.
struct DERTree {
    var tag: UInt8
    /// A primitive element's contents.
    var contents: [UInt8] = []
    /// A constructed element's elements.
    var children: [DERTree] = []
    /// Length octets to write instead of the shortest ones.
    var length: [UInt8]? = nil

    var isConstructed: Bool { tag & 0x20 != 0 }

    init(tag: UInt8, contents: [UInt8]) {
        self.tag = tag
        self.contents = contents
    }

    init(tag: UInt8, children: [DERTree]) {
        self.tag = tag
        self.children = children
    }

    /// Takes apart `der`, which must be well formed.
    init(_ der: [UInt8]) {
        var position = 0
        self = Self.read(der, &position)
        precondition(position == der.count, "trailing bytes")
    }

    private static func read(_ der: [UInt8], _ position: inout Int) -> DERTree {
        let tag = der[position]
        var length = Int(der[position + 1])
        position += 2
        if length & 0x80 != 0 {
            let width = length & 0x7f
            length = der[position..<position + width].reduce(0) { $0 << 8 | Int($1) }
            position += width
        }
        let end = position + length
        guard tag & 0x20 != 0 else {
            defer { position = end }
            return DERTree(tag: tag, contents: Array(der[position..<end]))
        }
        var children: [DERTree] = []
        while position < end { children.append(read(der, &position)) }
        return DERTree(tag: tag, children: children)
    }

    /// The element encoded again, with `length` where set.
    var encoded: [UInt8] {
        let body = isConstructed ? children.flatMap(\.encoded) : contents
        return [tag] + (length ?? Self.shortestLength(body.count)) + body
    }

    static func shortestLength(_ count: Int) -> [UInt8] {
        guard count >= 0x80 else { return [UInt8(count)] }
        var octets: [UInt8] = []
        var rest = count
        while rest > 0 {
            octets.insert(UInt8(rest & 0xff), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(octets.count)] + octets
    }

    /// The element at `path`, one child index per level.
    subscript(path: Int...) -> DERTree {
        get { self[path[...]] }
        set { self[path[...]] = newValue }
    }

    subscript(path: ArraySlice<Int>) -> DERTree {
        get { path.isEmpty ? self : children[path.first!][path.dropFirst()] }
        set {
            if path.isEmpty { self = newValue } else { children[path.first!][path.dropFirst()] = newValue }
        }
    }

    /// The offsets in `encoded` of every tag and length octet, and those of every time's contents (UTCTime,
    /// GeneralizedTime): where the differential test changes bytes.
    var structuralOffsets: (headers: [Int], times: [Int]) {
        var headers: [Int] = [], times: [Int] = []
        func walk(_ node: DERTree, _ start: Int) {
            let header = node.encoded.count - (node.isConstructed ? node.children.flatMap(\.encoded).count : node.contents.count)
            headers += start..<start + header
            if node.tag == 0x17 || node.tag == 0x18 { times += start + header..<start + header + node.contents.count }
            var child = start + header
            for element in node.children {
                walk(element, child)
                child += element.encoded.count
            }
        }
        walk(self, 0)
        return (headers, times)
    }
}
