/// A decoded CBOR (RFC 8949) data item, limited to what App Attest objects use.
///
/// Tags, floating-point numbers, `undefined` and indefinite lengths are refused by the decoder: Apple's attestation
/// and assertion objects use none of them, and every feature not accepted is one less way to smuggle bytes past a
/// check. The decoder is ours (not libcbor) because the subset is small, the limits must be exact, and a strict
/// decoder with no allocation surprises is shorter than the glue a C library would need.
public enum CBOR: Sendable, Equatable {
    case unsigned(UInt64)
    /// The integer `-1 - n`.
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([CBOR])
    /// Entries in encoded order; keys are unique.
    case map([MapEntry])
    case boolean(Bool)
    case null

    /// One key/value pair of a map.
    public struct MapEntry: Sendable, Equatable {
        public var key: CBOR
        public var value: CBOR
        public init(key: CBOR, value: CBOR) {
            self.key = key
            self.value = value
        }
    }

    /// The value under text key `key`, when this is a map that has one.
    public subscript(key: String) -> CBOR? { self[.text(key)] }

    /// The value under integer key `key` (COSE labels), when this is a map that has one.
    public subscript(label label: Int) -> CBOR? { self[CBOR(integer: label)] }

    /// The value under `key`, when this is a map that has one.
    public subscript(key: CBOR) -> CBOR? {
        guard case .map(let entries) = self else { return nil }
        return entries.first { $0.key == key }?.value
    }

    /// The CBOR integer equal to `value`.
    public init(integer value: Int) {
        self = value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-1 - value))
    }

    /// The bytes, when this is a byte string.
    public var bytesValue: [UInt8]? { if case .bytes(let bytes) = self { bytes } else { nil } }
    /// The string, when this is a text string.
    public var textValue: String? { if case .text(let text) = self { text } else { nil } }
    /// The integer, when this is an integer that fits an `Int`.
    public var intValue: Int? {
        switch self {
        case .unsigned(let value) where value <= UInt64(Int.max): Int(value)
        case .negative(let value) where value <= UInt64(Int.max): -1 - Int(value)
        default: nil
        }
    }
}
