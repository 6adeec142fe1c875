import GRPC

/// `google.protobuf.Struct` without nesting: a JSON object whose members are null, numbers, strings or booleans
/// (what Envoy's dynamic metadata carries here).
public struct ProtoStruct: ProtoMessage, Hashable {
    public var fields: [String: Value]

    public init(_ fields: [String: Value] = [:]) {
        self.fields = fields
    }

    /// `google.protobuf.Value`, the kinds attestd writes.
    public enum Value: Sendable, Hashable {
        case null
        case number(Double)
        case string(String)
        case bool(Bool)
    }
}

extension ProtoStruct: CBackedMessage {
    static let descriptor = MessageDescriptor("google.protobuf.Struct")

    init(reading message: MessageReader) throws(GRPCStatus) {
        // A map's last entry of a repeated key wins, as protobuf's map semantics say.
        fields = Dictionary(try message.messages(1, as: FieldsEntry.self).map { ($0.key, $0.value.value) },
                            uniquingKeysWith: { _, last in last })
    }

    func write(to message: MessageWriter) {
        message.messages(1, fields.sorted { $0.key < $1.key }.map { FieldsEntry(key: $0.key, value: ValueMessage($0.value)) })
    }

    struct FieldsEntry: CBackedMessage {
        static let descriptor = MessageDescriptor("google.protobuf.Struct.FieldsEntry")
        var key: String
        var value: ValueMessage

        init(key: String, value: ValueMessage) {
            self.key = key
            self.value = value
        }

        init(reading message: MessageReader) throws(GRPCStatus) {
            key = try message.string(1)
            value = try message.message(2, as: ValueMessage.self) ?? ValueMessage(.null)
        }

        func write(to message: MessageWriter) {
            message.string(1, key)
            message.message(2, value)
        }
    }

    /// The `kind` oneof of `google.protobuf.Value`: null_value (1), number_value (2), string_value (3), bool_value (4).
    /// A kind this subset does not know (a nested struct or list) reads as null.
    struct ValueMessage: CBackedMessage {
        static let descriptor = MessageDescriptor("google.protobuf.Value")
        var value: Value

        init(_ value: Value) { self.value = value }

        init(reading message: MessageReader) throws(GRPCStatus) {
            if message.has(2) {
                value = .number(message.double(2))
            } else if message.has(3) {
                value = .string(try message.string(3))
            } else if message.has(4) {
                value = .bool(message.bool(4))
            } else {
                value = .null
            }
        }

        func write(to message: MessageWriter) {
            switch value {
            case .null: message.int32(1, 0)
            case .number(let number): message.double(2, number)
            case .string(let string): message.string(3, string)
            case .bool(let bool): message.bool(4, bool)
            }
        }
    }
}
