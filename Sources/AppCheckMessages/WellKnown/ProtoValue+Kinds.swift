extension ProtoValue {
    /// JSON's null.
    public static let null = ProtoValue(kind: .nullValue(.nullValue))

    /// A number (a JSON number is a double).
    public static func number(_ value: Double) -> ProtoValue { ProtoValue(kind: .numberValue(value)) }

    /// A string.
    public static func string(_ value: String) -> ProtoValue { ProtoValue(kind: .stringValue(value)) }

    /// A boolean.
    public static func bool(_ value: Bool) -> ProtoValue { ProtoValue(kind: .boolValue(value)) }
}
