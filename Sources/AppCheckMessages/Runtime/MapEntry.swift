/// The entry message of a map field: protobuf carries `map<K, V>` as a repeated message whose field 1 is the key
/// and field 2 the value. ``MessageReader/map(_:as:)`` and ``MessageWriter/map(_:_:as:)`` turn the entries into a
/// dictionary and back.
protocol MapEntry: CBackedMessage {
    associatedtype Key: Hashable & Comparable & Sendable
    associatedtype Value: Sendable
    var key: Key { get }
    var value: Value { get }
    init(key: Key, value: Value)
}
