/// The shape of a protobuf message as the JSON transcoder needs it: field names, numbers and types.
///
/// AppCheckMessages derives one for each message from its protobuf-c descriptor.
public struct MessageSchema: Sendable, CustomStringConvertible {
    /// The fully qualified name (`google.firebase.appcheck.v1.AppCheckToken`).
    public let fullName: String
    /// The fields, in field-number order (the order JSON output uses).
    public let fields: [FieldSchema]

    public init(fullName: String, fields: [FieldSchema]) {
        self.fullName = fullName
        self.fields = fields.sorted { $0.number < $1.number }
    }

    /// The index of the field a JSON key names: its lowerCamelCase JSON name or its proto name.
    public func fieldIndex(forJSONKey key: String) -> Int? {
        fields.firstIndex { $0.jsonName == key } ?? fields.firstIndex { $0.name == key }
    }

    /// The index of the field with this number.
    public func fieldIndex(forNumber number: Int) -> Int? {
        fields.firstIndex { $0.number == number }
    }

    public var description: String { fullName }

    /// Whether the message has its own JSON form (a string) rather than an object.
    var isWellKnown: Bool { fullName == Self.durationName || fullName == Self.timestampName }

    static let durationName = "google.protobuf.Duration"
    static let timestampName = "google.protobuf.Timestamp"
}

/// One field of a ``MessageSchema``.
public struct FieldSchema: Sendable {
    /// The proto name (`attestation_statement`).
    public let name: String
    /// The lowerCamelCase JSON name (`attestationStatement`).
    public let jsonName: String
    /// The field number on the wire.
    public let number: Int
    public let type: FieldType
    /// Whether the field is `repeated` (a JSON array).
    public let isRepeated: Bool

    /// A field; `jsonName` defaults to the lowerCamelCase of `name`, as protoc derives it.
    public init(name: String, jsonName: String? = nil, number: Int, type: FieldType, isRepeated: Bool = false) {
        self.name = name
        self.jsonName = jsonName ?? Self.lowerCamelCase(name)
        self.number = number
        self.type = type
        self.isRepeated = isRepeated
    }

    /// protoc's JSON name rule: drop each `_` and capitalise the letter after it.
    public static func lowerCamelCase(_ name: String) -> String {
        var out = ""
        var upperNext = false
        for character in name {
            if character == "_" {
                upperNext = true
            } else if upperNext {
                out.append(contentsOf: character.uppercased())
                upperNext = false
            } else {
                out.append(character)
            }
        }
        return out
    }
}

/// The type of a field.
public enum FieldType: Sendable {
    case double, float, int64, uint64, int32, fixed64, fixed32, bool, string, bytes, uint32, sfixed32, sfixed64
    case sint32, sint64
    case enumeration(EnumSchema)
    indirect case message(MessageSchema)

    /// The name Google's error messages use (`TYPE_BYTES`).
    var errorName: String {
        switch self {
        case .double: "TYPE_DOUBLE"
        case .float: "TYPE_FLOAT"
        case .int64: "TYPE_INT64"
        case .uint64: "TYPE_UINT64"
        case .int32: "TYPE_INT32"
        case .fixed64: "TYPE_FIXED64"
        case .fixed32: "TYPE_FIXED32"
        case .bool: "TYPE_BOOL"
        case .string: "TYPE_STRING"
        case .bytes: "TYPE_BYTES"
        case .uint32: "TYPE_UINT32"
        case .sfixed32: "TYPE_SFIXED32"
        case .sfixed64: "TYPE_SFIXED64"
        case .sint32: "TYPE_SINT32"
        case .sint64: "TYPE_SINT64"
        case .enumeration(let schema): "TYPE_ENUM (\(schema.fullName))"
        case .message(let schema): "TYPE_MESSAGE (\(schema.fullName))"
        }
    }
}

/// The values of an enum type.
public struct EnumSchema: Sendable {
    /// The fully qualified name (`grpc.health.v1.HealthCheckResponse.ServingStatus`).
    public let fullName: String
    /// The values, each a name and a number.
    public let values: [(name: String, number: Int32)]

    public init(fullName: String, values: [(name: String, number: Int32)]) {
        self.fullName = fullName
        self.values = values
    }

    func name(for number: Int32) -> String? { values.first { $0.number == number }?.name }
    func number(for name: String) -> Int32? { values.first { $0.name == name }?.number }
}
