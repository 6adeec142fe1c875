/// A fuzz input read front to back: fixed-size fields first, then the object under test.
///
/// Fields past the end read as zeros, so every input is usable and libFuzzer need not learn the layout first.
public struct FuzzInput {
    private let bytes: [UInt8]
    private var position = 0

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The next `count` bytes, zero-padded at the end of the input.
    public mutating func take(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, position + count)
        var field = Array(bytes[min(position, end)..<end])
        field.append(contentsOf: repeatElement(0, count: count - field.count))
        position = min(bytes.count, position + count)
        return field
    }

    /// The next byte (0 at the end).
    public mutating func byte() -> UInt8 { take(1)[0] }

    /// The next two bytes as a big-endian length.
    public mutating func length16() -> Int {
        let field = take(2)
        return Int(field[0]) << 8 | Int(field[1])
    }

    /// The next eight bytes as a big-endian signed integer.
    public mutating func int64() -> Int64 {
        take(8).reduce(0) { $0 << 8 | Int64($1) }
    }

    /// Whether every byte has been taken.
    public var isAtEnd: Bool { position >= bytes.count }

    /// Everything not taken yet.
    public mutating func rest() -> [UInt8] {
        defer { position = bytes.count }
        return Array(bytes[position...])
    }
}
