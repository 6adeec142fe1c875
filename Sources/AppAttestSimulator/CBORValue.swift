/// A CBOR data item, enough of RFC 8949 to write App Attest objects and their malformed cousins.
///
/// Maps keep the order they are given in (Apple writes `fmt`, `attStmt`, `authData` in that order), and every
/// length is definite, as in Apple's objects.
public indirect enum CBORValue: Sendable, Equatable {
    /// Major type 0.
    case unsigned(UInt64)
    /// Major type 1: the value is `-1 - n`, so `.negative(6)` is -7.
    case negative(UInt64)
    /// Major type 2.
    case bytes([UInt8])
    /// Major type 3.
    case text(String)
    /// Major type 4.
    case array([CBORValue])
    /// Major type 5, in the order given.
    case map([(key: CBORValue, value: CBORValue)])

    /// The item's encoding, definite lengths and shortest argument forms throughout.
    public var encoded: [UInt8] {
        var out: [UInt8] = []
        append(to: &out)
        return out
    }

    /// Appends the item's encoding to `out`.
    public func append(to out: inout [UInt8]) {
        switch self {
        case .unsigned(let value):
            Self.appendHead(major: 0, argument: value, to: &out)
        case .negative(let value):
            Self.appendHead(major: 1, argument: value, to: &out)
        case .bytes(let bytes):
            Self.appendHead(major: 2, argument: UInt64(bytes.count), to: &out)
            out += bytes
        case .text(let string):
            let utf8 = Array(string.utf8)
            Self.appendHead(major: 3, argument: UInt64(utf8.count), to: &out)
            out += utf8
        case .array(let items):
            Self.appendHead(major: 4, argument: UInt64(items.count), to: &out)
            for item in items { item.append(to: &out) }
        case .map(let entries):
            Self.appendHead(major: 5, argument: UInt64(entries.count), to: &out)
            for entry in entries {
                entry.key.append(to: &out)
                entry.value.append(to: &out)
            }
        }
    }

    /// Writes a major type and its argument in the shortest form RFC 8949 §4.2.1 allows.
    static func appendHead(major: UInt8, argument: UInt64, to out: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0..<24:
            out.append(type | UInt8(argument))
        case 24...0xFF:
            out += [type | 24, UInt8(argument)]
        case 0x100...0xFFFF:
            out.append(type | 25)
            appendBigEndian(argument, byteCount: 2, to: &out)
        case 0x1_0000...0xFFFF_FFFF:
            out.append(type | 26)
            appendBigEndian(argument, byteCount: 4, to: &out)
        default:
            out.append(type | 27)
            appendBigEndian(argument, byteCount: 8, to: &out)
        }
    }

    private static func appendBigEndian(_ value: UInt64, byteCount: Int, to out: inout [UInt8]) {
        for shift in stride(from: (byteCount - 1) * 8, through: 0, by: -8) {
            out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    public static func == (lhs: CBORValue, rhs: CBORValue) -> Bool {
        lhs.encoded == rhs.encoded
    }
}
