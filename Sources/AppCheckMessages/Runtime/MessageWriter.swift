import CProtobufC

/// Fills the fields of a C message under construction, by field number, through its descriptor's offsets.
/// Strings, bytes and sub-messages are copied into the arena, which outlives the packing.
struct MessageWriter {
    private let base: UnsafeMutableRawPointer
    private let descriptor: MessageDescriptor
    private let arena: UnsafeMutablePointer<Arena>

    init(_ base: UnsafeMutableRawPointer, _ descriptor: MessageDescriptor, _ arena: UnsafeMutablePointer<Arena>) {
        self.base = base
        self.descriptor = descriptor
        self.arena = arena
    }

    /// The offset of field `number`; for a member of a oneof, also records it as the member set (protobuf-c packs a
    /// oneof's member only when the oneof's case names it).
    private func offset(_ number: UInt32) -> Int {
        let field = descriptor.field(number).pointee
        if field.flags & PROTOBUF_C_FIELD_FLAG_ONEOF.rawValue != 0 {
            base.storeBytes(of: field.id, toByteOffset: Int(field.quantifier_offset), as: UInt32.self)
        }
        return Int(field.offset)
    }

    private func isOneofMember(_ number: UInt32) -> Bool {
        descriptor.field(number).pointee.flags & PROTOBUF_C_FIELD_FLAG_ONEOF.rawValue != 0
    }

    /// Sets a string field; the empty string is the default and is left as protobuf-c initialised it, unless the
    /// field is a oneof's member, where an empty string still says which member is set.
    func string(_ number: UInt32, _ value: String) {
        guard !value.isEmpty || isOneofMember(number) else { return }
        var value = value
        let copy = value.withUTF8 { utf8 in
            let pointer = arena.pointee.allocate(utf8.count + 1)  // zeroed: the terminating NUL is there
            if utf8.count > 0 { pointer.copyMemory(from: utf8.baseAddress!, byteCount: utf8.count) }
            return pointer.assumingMemoryBound(to: CChar.self)
        }
        base.storeBytes(of: UnsafeMutablePointer<CChar>?(copy), toByteOffset: offset(number),
                        as: UnsafeMutablePointer<CChar>?.self)
    }

    /// Sets a repeated string field.
    func strings(_ number: UInt32, _ values: [String]) {
        guard !values.isEmpty else { return }
        let field = descriptor.field(number).pointee
        let array = arena.pointee.allocate(MemoryLayout<UnsafeMutablePointer<CChar>>.stride * values.count)
            .bindMemory(to: UnsafeMutablePointer<CChar>.self, capacity: values.count)
        for (i, value) in values.enumerated() {
            var value = value
            array[i] = value.withUTF8 { utf8 in
                let pointer = arena.pointee.allocate(utf8.count + 1)
                if utf8.count > 0 { pointer.copyMemory(from: utf8.baseAddress!, byteCount: utf8.count) }
                pointer.storeBytes(of: 0, toByteOffset: utf8.count, as: UInt8.self)
                return pointer.assumingMemoryBound(to: CChar.self)
            }
        }
        base.storeBytes(of: values.count, toByteOffset: Int(field.quantifier_offset), as: Int.self)
        base.storeBytes(of: UnsafeMutablePointer?(array), toByteOffset: Int(field.offset),
                        as: UnsafeMutablePointer<UnsafeMutablePointer<CChar>>?.self)
    }

    /// Sets a bytes field; empty is the default and is left as protobuf-c initialised it, unless the field is a
    /// oneof's member.
    func bytes(_ number: UInt32, _ value: [UInt8]) {
        guard !value.isEmpty || isOneofMember(number) else { return }
        let copy = arena.pointee.allocate(value.count)
        value.withUnsafeBytes { if value.count > 0 { copy.copyMemory(from: $0.baseAddress!, byteCount: $0.count) } }
        let data = ProtobufCBinaryData(len: value.count, data: copy.assumingMemoryBound(to: UInt8.self))
        base.storeBytes(of: data, toByteOffset: offset(number), as: ProtobufCBinaryData.self)
    }

    func bool(_ number: UInt32, _ value: Bool) {
        base.storeBytes(of: value ? 1 : 0, toByteOffset: offset(number), as: protobuf_c_boolean.self)
    }

    func int32(_ number: UInt32, _ value: Int32) { base.storeBytes(of: value, toByteOffset: offset(number), as: Int32.self) }
    func double(_ number: UInt32, _ value: Double) { base.storeBytes(of: value, toByteOffset: offset(number), as: Double.self) }
    func uint32(_ number: UInt32, _ value: UInt32) { base.storeBytes(of: value, toByteOffset: offset(number), as: UInt32.self) }
    func int64(_ number: UInt32, _ value: Int64) { base.storeBytes(of: value, toByteOffset: offset(number), as: Int64.self) }

    /// Sets a message field; nil leaves it absent.
    func message<M: CBackedMessage>(_ number: UInt32, _ value: M?) {
        guard let value else { return }
        let pointer = build(value)
        base.storeBytes(of: UnsafeMutableRawPointer?(pointer), toByteOffset: offset(number),
                        as: UnsafeMutableRawPointer?.self)
    }

    /// Sets a repeated message field.
    func messages<M: CBackedMessage>(_ number: UInt32, _ values: [M]) {
        guard !values.isEmpty else { return }
        let field = descriptor.field(number).pointee
        let array = arena.pointee.allocate(MemoryLayout<UnsafeMutableRawPointer>.stride * values.count)
            .bindMemory(to: UnsafeMutableRawPointer.self, capacity: values.count)
        for (i, value) in values.enumerated() { array[i] = build(value) }
        base.storeBytes(of: values.count, toByteOffset: Int(field.quantifier_offset), as: Int.self)
        base.storeBytes(of: UnsafeMutablePointer?(array), toByteOffset: Int(field.offset),
                        as: UnsafeMutablePointer<UnsafeMutableRawPointer>?.self)
    }

    /// Sets a map field, its entries in key order so that equal maps encode alike.
    func map<Entry: MapEntry>(_ number: UInt32, _ map: [Entry.Key: Entry.Value], as type: Entry.Type) {
        messages(number, map.sorted { $0.key < $1.key }.map { Entry(key: $0.key, value: $0.value) })
    }

    private func build<M: CBackedMessage>(_ value: M) -> UnsafeMutableRawPointer {
        let pointer = arena.pointee.allocate(M.descriptor.pointer.pointee.sizeof_message)
        protobuf_c_message_init(M.descriptor.pointer, pointer)
        value.write(to: MessageWriter(pointer, M.descriptor, arena))
        return pointer
    }
}
