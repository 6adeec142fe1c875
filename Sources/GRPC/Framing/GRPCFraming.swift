/// gRPC's length-prefixed message framing for unary RPCs: a 1-byte compressed flag, a 4-byte big-endian length,
/// then the message.
public enum GRPCFraming {
    /// Bytes before each message: the compressed flag and the length.
    public static let prefixSize = 5

    /// The default largest message attestd accepts (api-contract.md §1).
    public static let defaultMaxMessageSize = 64 * 1024

    /// `message` with its 5-byte prefix (uncompressed).
    public static func frame(_ message: [UInt8]) -> [UInt8] {
        var framed = [UInt8]()
        framed.reserveCapacity(prefixSize + message.count)
        appendFrame(message, to: &framed)
        return framed
    }

    /// Appends `message` with its 5-byte prefix (uncompressed) to `buffer`.
    public static func appendFrame(_ message: [UInt8], to buffer: inout [UInt8]) {
        let length = UInt32(truncatingIfNeeded: message.count)
        buffer.append(0)
        buffer.append(UInt8(truncatingIfNeeded: length >> 24))
        buffer.append(UInt8(truncatingIfNeeded: length >> 16))
        buffer.append(UInt8(truncatingIfNeeded: length >> 8))
        buffer.append(UInt8(truncatingIfNeeded: length))
        buffer.append(contentsOf: message)
    }

    /// The most body bytes a unary request may hold for `maxMessageSize`: a transport can stop reading (and answer
    /// RESOURCE_EXHAUSTED) once a body grows past it.
    public static func maxBodySize(forMessageLimit maxMessageSize: Int) -> Int {
        prefixSize + maxMessageSize
    }

    /// The body size a unary request's first bytes announce: the prefix and the message length it names; nil until
    /// the whole prefix has arrived. A transport can refuse a body announced over ``maxBodySize(forMessageLimit:)``
    /// as soon as the prefix arrives, instead of waiting for bytes it would discard.
    public static func announcedBodySize(_ bodyPrefix: [UInt8]) -> Int? {
        guard bodyPrefix.count >= prefixSize else { return nil }
        return prefixSize + (Int(bodyPrefix[1]) << 24 | Int(bodyPrefix[2]) << 16 | Int(bodyPrefix[3]) << 8 | Int(bodyPrefix[4]))
    }

    /// The single message of a complete unary request body.
    ///
    /// - Throws: RESOURCE_EXHAUSTED when the message is over `maxMessageSize`; UNIMPLEMENTED when it is
    ///   compressed; INTERNAL when the body is empty, truncated, garbled or holds more than one message.
    public static func deframe(_ body: [UInt8], maxMessageSize: Int) throws(GRPCStatus) -> ArraySlice<UInt8> {
        try deframe(body[...], maxMessageSize: maxMessageSize)
    }

    /// The single message of a complete unary request body; see ``deframe(_:maxMessageSize:)-([UInt8],_)``.
    public static func deframe(_ body: ArraySlice<UInt8>, maxMessageSize: Int) throws(GRPCStatus) -> ArraySlice<UInt8> {
        guard !body.isEmpty else {
            throw GRPCStatus(.internal, "The request holds no gRPC message: a unary RPC needs exactly one.")
        }
        guard body.count >= prefixSize else {
            throw GRPCStatus(.internal, "Truncated gRPC message: \(body.count) bytes, shorter than the 5-byte prefix.")
        }
        let start = body.startIndex
        switch body[start] {
        case 0: break
        case 1: throw GRPCStatus(.unimplemented, "Compressed gRPC messages are not supported: send identity encoding.")
        default: throw GRPCStatus(.internal, "Garbled gRPC message: compressed flag \(body[start]) is neither 0 nor 1.")
        }
        let length = Int(body[start + 1]) << 24 | Int(body[start + 2]) << 16 | Int(body[start + 3]) << 8
            | Int(body[start + 4])
        guard length <= maxMessageSize else {
            throw GRPCStatus(
                .resourceExhausted,
                "gRPC message of \(length) bytes is larger than the maximum of \(maxMessageSize) bytes."
            )
        }
        let available = body.count - prefixSize
        guard available >= length else {
            throw GRPCStatus(.internal, "Truncated gRPC message: the prefix announces \(length) bytes, \(available) arrived.")
        }
        guard available == length else {
            throw GRPCStatus(.internal, "The request holds more than one gRPC message: a unary RPC needs exactly one.")
        }
        return body[(start + prefixSize)...]
    }
}
