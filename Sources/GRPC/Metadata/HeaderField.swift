/// One HTTP header or trailer field, as the transport sends it.
public struct HeaderField: Hashable, Sendable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}
