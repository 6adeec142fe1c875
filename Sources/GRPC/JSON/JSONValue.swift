/// A parsed JSON value (RFC 8259).
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    /// A number as written (`-12.5e3`), so that 64-bit integers keep every digit.
    case number(String)
    case string(String)
    case array([JSONValue])
    /// Members in the order written; duplicate keys are kept for the reader to judge.
    case object([JSONMember])

    /// The value of the first member named `key`, when this is an object that has one.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }
}

/// One `"key": value` member of a JSON object.
public struct JSONMember: Hashable, Sendable {
    /// The member name, unescaped.
    public var key: String
    /// The member value.
    public var value: JSONValue

    public init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}
