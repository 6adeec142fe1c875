import AppCheckProtos
import CProtobufC
import GRPC

/// A generated protobuf-c message descriptor, found by full name, with the schema derived from it.
struct MessageDescriptor: @unchecked Sendable {
    // @unchecked: the descriptor is immutable static data of the C library.
    let pointer: UnsafePointer<ProtobufCMessageDescriptor>
    let schema: MessageSchema

    /// The descriptor of `fullName` (`google.protobuf.Duration`); the name must be one of `Protos/`.
    init(_ fullName: String) {
        guard let pointer = appcheck_protos_message_descriptor(fullName) else {
            preconditionFailure("no protobuf-c descriptor for \(fullName): regenerate Sources/AppCheckProtos")
        }
        self.pointer = pointer
        self.schema = Self.schema(of: pointer)
    }

    var fullName: String { schema.fullName }

    /// The C field descriptor of field `number`, which the message must have.
    func field(_ number: UInt32) -> UnsafePointer<ProtobufCFieldDescriptor> {
        guard let field = protobuf_c_message_descriptor_get_field(pointer, number) else {
            preconditionFailure("\(fullName) has no field \(number)")
        }
        return field
    }

    private static func schema(of descriptor: UnsafePointer<ProtobufCMessageDescriptor>) -> MessageSchema {
        let d = descriptor.pointee
        var fields: [FieldSchema] = []
        for i in 0..<Int(d.n_fields) {
            let f = d.fields[i]
            fields.append(FieldSchema(
                name: String(cString: f.name),
                number: Int(f.id),
                type: fieldType(f),
                isRepeated: f.label == PROTOBUF_C_LABEL_REPEATED
            ))
        }
        return MessageSchema(fullName: String(cString: d.name), fields: fields)
    }

    private static func fieldType(_ f: ProtobufCFieldDescriptor) -> FieldType {
        switch f.type {
        case PROTOBUF_C_TYPE_INT32: .int32
        case PROTOBUF_C_TYPE_SINT32: .sint32
        case PROTOBUF_C_TYPE_SFIXED32: .sfixed32
        case PROTOBUF_C_TYPE_INT64: .int64
        case PROTOBUF_C_TYPE_SINT64: .sint64
        case PROTOBUF_C_TYPE_SFIXED64: .sfixed64
        case PROTOBUF_C_TYPE_UINT32: .uint32
        case PROTOBUF_C_TYPE_FIXED32: .fixed32
        case PROTOBUF_C_TYPE_UINT64: .uint64
        case PROTOBUF_C_TYPE_FIXED64: .fixed64
        case PROTOBUF_C_TYPE_FLOAT: .float
        case PROTOBUF_C_TYPE_DOUBLE: .double
        case PROTOBUF_C_TYPE_BOOL: .bool
        case PROTOBUF_C_TYPE_STRING: .string
        case PROTOBUF_C_TYPE_BYTES: .bytes
        case PROTOBUF_C_TYPE_ENUM:
            .enumeration(enumSchema(f.descriptor.assumingMemoryBound(to: ProtobufCEnumDescriptor.self)))
        case PROTOBUF_C_TYPE_MESSAGE:
            .message(schema(of: f.descriptor.assumingMemoryBound(to: ProtobufCMessageDescriptor.self)))
        default:
            preconditionFailure("protobuf-c field type \(f.type.rawValue) is unknown to attestd")
        }
    }

    private static func enumSchema(_ descriptor: UnsafePointer<ProtobufCEnumDescriptor>) -> EnumSchema {
        let d = descriptor.pointee
        let values = (0..<Int(d.n_values)).map { i in
            (name: String(cString: d.values[i].name), number: Int32(d.values[i].value))
        }
        return EnumSchema(fullName: String(cString: d.name), values: values)
    }
}
