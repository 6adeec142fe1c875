/// One HTTP header or trailer field, as the transport sends it.
public struct HeaderField: Hashable, Sendable {
    /// The lowercase field name (`grpc-status`, `:status`).
    public var name: String
    /// The field value as sent.
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}
