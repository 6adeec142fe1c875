/// A minimal definite-length CBOR reader, so the simulator's tests can take its objects apart without the
/// verifier under test.
enum CBORItem: Equatable {
    case unsigned(UInt64)
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([CBORItem])
    case map([CBORItem], [CBORItem])

    /// Decodes one item that must fill `bytes` exactly.
    static func decode(_ bytes: [UInt8]) -> CBORItem? {
        var offset = 0
        guard let item = read(bytes, &offset), offset == bytes.count else { return nil }
        return item
    }

    /// Decodes one item at `offset`, advancing it.
    static func read(_ bytes: [UInt8], _ offset: inout Int) -> CBORItem? {
        guard offset < bytes.count else { return nil }
        let initial = bytes[offset]
        offset += 1
        let major = initial >> 5
        let info = initial & 0x1F
        var argument: UInt64
        switch info {
        case 0..<24: argument = UInt64(info)
        case 24...27:
            let count = 1 << Int(info - 24)
            guard offset + count <= bytes.count else { return nil }
            argument = bytes[offset..<offset + count].reduce(0) { $0 << 8 | UInt64($1) }
            offset += count
        default: return nil
        }
        switch major {
        case 0: return .unsigned(argument)
        case 1: return .negative(argument)
        case 2, 3:
            let end = offset + Int(argument)
            guard end <= bytes.count else { return nil }
            let content = Array(bytes[offset..<end])
            offset = end
            return major == 2 ? .bytes(content) : .text(String(decoding: content, as: UTF8.self))
        case 4:
            var items: [CBORItem] = []
            for _ in 0..<argument {
                guard let item = read(bytes, &offset) else { return nil }
                items.append(item)
            }
            return .array(items)
        case 5:
            var keys: [CBORItem] = []
            var values: [CBORItem] = []
            for _ in 0..<argument {
                guard let key = read(bytes, &offset), let value = read(bytes, &offset) else { return nil }
                keys.append(key)
                values.append(value)
            }
            return .map(keys, values)
        default: return nil
        }
    }

    /// The value for text key `key` of a map.
    subscript(key: String) -> CBORItem? {
        guard case .map(let keys, let values) = self, let index = keys.firstIndex(of: .text(key)) else { return nil }
        return values[index]
    }

    /// The text keys of a map, in order.
    var keys: [String] {
        guard case .map(let keys, _) = self else { return [] }
        return keys.compactMap { if case .text(let key) = $0 { key } else { nil } }
    }

    var bytes: [UInt8]? { if case .bytes(let value) = self { value } else { nil } }
    var array: [CBORItem]? { if case .array(let value) = self { value } else { nil } }
}
