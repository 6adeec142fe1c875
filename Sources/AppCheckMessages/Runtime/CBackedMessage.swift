import CProtobufC
import GRPC

/// A message whose encoding is protobuf-c's: it reads itself from an unpacked C message and writes itself into
/// one. Gives ``ProtoMessage`` its implementation.
protocol CBackedMessage: ProtoMessage {
    static var descriptor: MessageDescriptor { get }
    init(reading message: MessageReader) throws(GRPCStatus)
    func write(to message: MessageWriter)
}

extension CBackedMessage {
    public static var schema: MessageSchema { descriptor.schema }

    public init(serializedBytes: [UInt8]) throws(GRPCStatus) {
        try self.init(serializedBytes: serializedBytes[...])
    }

    public init(serializedBytes: ArraySlice<UInt8>) throws(GRPCStatus) {
        let descriptor = Self.descriptor
        let result: Result<Self, GRPCStatus> = serializedBytes.withUnsafeBufferPointer { buffer in
            UnpackArena.withAllocator { allocator in
                // protobuf-c reads nothing for an empty buffer, but wants a pointer all the same.
                var empty: UInt8 = 0
                let unpacked = withUnsafePointer(to: &empty) { emptyPointer in
                    protobuf_c_message_unpack(descriptor.pointer, allocator, buffer.count,
                                              buffer.baseAddress ?? emptyPointer)
                }
                guard let unpacked else {
                    return .failure(GRPCStatus(.invalidArgument, "The message is not a valid \(descriptor.fullName)."))
                }
                defer { protobuf_c_message_free_unpacked(unpacked, allocator) }
                do throws(GRPCStatus) {
                    return .success(try Self(reading: MessageReader(UnsafeRawPointer(unpacked), descriptor)))
                } catch {
                    return .failure(error)
                }
            }
        }
        self = try result.get()
    }

    public func serializedBytes() -> [UInt8] {
        packed(prefix: 0)
    }

    public func framedBytes() -> [UInt8] {
        var bytes = packed(prefix: GRPCFraming.prefixSize)
        let length = UInt32(bytes.count - GRPCFraming.prefixSize)
        bytes[0] = 0
        bytes[1] = UInt8(truncatingIfNeeded: length >> 24)
        bytes[2] = UInt8(truncatingIfNeeded: length >> 16)
        bytes[3] = UInt8(truncatingIfNeeded: length >> 8)
        bytes[4] = UInt8(truncatingIfNeeded: length)
        return bytes
    }

    /// The protobuf encoding after `prefix` bytes left for the caller to fill.
    private func packed(prefix: Int) -> [UInt8] {
        let descriptor = Self.descriptor
        // Small messages are built in stack memory; the arena spills to the heap only for large fields.
        return withUnsafeTemporaryAllocation(byteCount: Arena.stackSize, alignment: 16) { stack in
            var arena = Arena(stack)
            return withUnsafeMutablePointer(to: &arena) { arena in
                let base = arena.pointee.allocate(descriptor.pointer.pointee.sizeof_message)
                protobuf_c_message_init(descriptor.pointer, base)
                write(to: MessageWriter(base, descriptor, arena))
                let message = base.assumingMemoryBound(to: ProtobufCMessage.self)
                let size = protobuf_c_message_get_packed_size(message)
                guard prefix + size > 0 else { return [] }
                return [UInt8](unsafeUninitializedCapacity: prefix + size) { out, count in
                    out.baseAddress!.initialize(repeating: 0, count: prefix)
                    count = prefix + (size > 0 ? protobuf_c_message_pack(message, out.baseAddress! + prefix) : 0)
                }
            }
        }
    }
}
