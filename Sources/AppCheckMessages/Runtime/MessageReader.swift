import CProtobufC
import GRPC

/// Reads the fields of a message protobuf-c unpacked, by field number, through its descriptor's offsets.
struct MessageReader {
    private let base: UnsafeRawPointer
    private let descriptor: MessageDescriptor

    init(_ base: UnsafeRawPointer, _ descriptor: MessageDescriptor) {
        self.base = base
        self.descriptor = descriptor
    }

    private func offset(_ number: UInt32) -> Int { Int(descriptor.field(number).pointee.offset) }

    /// False for a member of a oneof other than the one set (the members share their storage).
    func has(_ number: UInt32) -> Bool {
        let field = descriptor.field(number).pointee
        guard field.flags & PROTOBUF_C_FIELD_FLAG_ONEOF.rawValue != 0 else { return true }
        return base.load(fromByteOffset: Int(field.quantifier_offset), as: UInt32.self) == field.id
    }

    /// A string field; INVALID_ARGUMENT when its bytes are not UTF-8 (proto3 requires them to be).
    func string(_ number: UInt32) throws(GRPCStatus) -> String {
        guard has(number), let pointer = base.load(fromByteOffset: offset(number), as: UnsafePointer<CChar>?.self) else { return "" }
        guard let string = String(validatingCString: pointer) else {
            let name = String(cString: descriptor.field(number).pointee.name)
            throw GRPCStatus(.invalidArgument, "Field '\(name)' of \(descriptor.fullName) is not valid UTF-8.")
        }
        return string
    }

    /// A repeated string field; INVALID_ARGUMENT when one is not UTF-8.
    func strings(_ number: UInt32) throws(GRPCStatus) -> [String] {
        let field = descriptor.field(number).pointee
        let count = base.load(fromByteOffset: Int(field.quantifier_offset), as: Int.self)
        guard count > 0,
              let array = base.load(fromByteOffset: Int(field.offset), as: UnsafePointer<UnsafePointer<CChar>>?.self)
        else { return [] }
        var strings: [String] = []
        strings.reserveCapacity(count)
        for i in 0..<count {
            guard let string = String(validatingCString: array[i]) else {
                throw GRPCStatus(.invalidArgument, "Field '\(String(cString: field.name))' of \(descriptor.fullName) is not valid UTF-8.")
            }
            strings.append(string)
        }
        return strings
    }

    func bytes(_ number: UInt32) -> [UInt8] {
        guard has(number) else { return [] }
        let data = base.load(fromByteOffset: offset(number), as: ProtobufCBinaryData.self)
        guard data.len > 0, let start = data.data else { return [] }
        return Array(UnsafeBufferPointer(start: start, count: data.len))
    }

    func bool(_ number: UInt32) -> Bool {
        has(number) && base.load(fromByteOffset: offset(number), as: protobuf_c_boolean.self) != 0
    }

    func int32(_ number: UInt32) -> Int32 { has(number) ? base.load(fromByteOffset: offset(number), as: Int32.self) : 0 }
    func double(_ number: UInt32) -> Double { has(number) ? base.load(fromByteOffset: offset(number), as: Double.self) : 0 }
    func uint32(_ number: UInt32) -> UInt32 { has(number) ? base.load(fromByteOffset: offset(number), as: UInt32.self) : 0 }
    func int64(_ number: UInt32) -> Int64 { has(number) ? base.load(fromByteOffset: offset(number), as: Int64.self) : 0 }

    /// A message field, or nil when it is absent.
    func message<M: CBackedMessage>(_ number: UInt32, as type: M.Type = M.self) throws(GRPCStatus) -> M? {
        guard has(number), let pointer = base.load(fromByteOffset: offset(number), as: UnsafeRawPointer?.self) else { return nil }
        return try M(reading: MessageReader(pointer, M.descriptor))
    }

    /// A repeated message field.
    func messages<M: CBackedMessage>(_ number: UInt32, as type: M.Type = M.self) throws(GRPCStatus) -> [M] {
        let field = descriptor.field(number).pointee
        let count = base.load(fromByteOffset: Int(field.quantifier_offset), as: Int.self)
        guard count > 0,
              let array = base.load(fromByteOffset: Int(field.offset), as: UnsafePointer<UnsafeRawPointer>?.self)
        else { return [] }
        var messages: [M] = []
        messages.reserveCapacity(count)
        for i in 0..<count {
            messages.append(try M(reading: MessageReader(array[i], M.descriptor)))
        }
        return messages
    }

    /// A map field; the last entry of a repeated key wins, as protobuf's map semantics say.
    func map<Entry: MapEntry>(_ number: UInt32, as type: Entry.Type) throws(GRPCStatus) -> [Entry.Key: Entry.Value] {
        var map: [Entry.Key: Entry.Value] = [:]
        for entry in try messages(number, as: Entry.self) { map[entry.key] = entry.value }
        return map
    }
}
