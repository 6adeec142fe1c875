/// The protobuf wire types (encoding guide, "Message Structure").
enum WireType: UInt8 {
    case varint = 0
    case fixed64 = 1
    case lengthDelimited = 2
    case startGroup = 3
    case endGroup = 4
    case fixed32 = 5
}

/// Appends protobuf wire encoding to a byte buffer.
struct WireWriter {
    var bytes: [UInt8] = []

    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    mutating func tag(_ number: Int, _ type: WireType) {
        varint(UInt64(number) << 3 | UInt64(type.rawValue))
    }

    mutating func fixed32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func fixed64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func lengthDelimited(_ number: Int, _ payload: some Collection<UInt8>) {
        tag(number, .lengthDelimited)
        varint(UInt64(payload.count))
        bytes.append(contentsOf: payload)
    }
}

/// One field value as it sits on the wire.
enum WireValue {
    case varint(UInt64)
    case fixed64(UInt64)
    case fixed32(UInt32)
    case lengthDelimited(Range<Int>)
}

/// Reads protobuf wire encoding from a byte buffer.
struct WireReader {
    let bytes: UnsafeRawBufferPointer
    var index: Int

    init(_ bytes: UnsafeRawBufferPointer, range: Range<Int>? = nil) {
        self.bytes = range.map { UnsafeRawBufferPointer(rebasing: bytes[$0]) } ?? bytes
        index = 0
    }

    var isAtEnd: Bool { index >= bytes.count }

    static let malformed = GRPCStatus(.internal, "Malformed protobuf message.")

    mutating func varint() throws(GRPCStatus) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while index < bytes.count && shift < 64 {
            let byte = bytes[index]
            index += 1
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
        throw Self.malformed
    }

    /// The next field's number and value; unknown wire types (groups) are refused.
    mutating func field() throws(GRPCStatus) -> (number: Int, value: WireValue) {
        let key = try varint()
        let number = Int(truncatingIfNeeded: key >> 3)
        guard number > 0, number <= 536_870_911 else { throw Self.malformed }
        switch WireType(rawValue: UInt8(key & 7)) {
        case .varint:
            return (number, .varint(try varint()))
        case .fixed64:
            guard bytes.count - index >= 8 else { throw Self.malformed }
            let value = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
            return (number, .fixed64(UInt64(littleEndian: value)))
        case .fixed32:
            guard bytes.count - index >= 4 else { throw Self.malformed }
            let value = bytes.loadUnaligned(fromByteOffset: index, as: UInt32.self)
            index += 4
            return (number, .fixed32(UInt32(littleEndian: value)))
        case .lengthDelimited:
            let length = try varint()
            guard length <= UInt64(bytes.count - index) else { throw Self.malformed }
            let start = index
            index += Int(length)
            return (number, .lengthDelimited(start..<index))
        case .startGroup, .endGroup, nil:
            throw Self.malformed
        }
    }
}
