/// The headers and trailers of a gRPC response.
///
/// A normal response is `headers`, the framed message, then `trailers(for:)`; an error with no message is a
/// trailers-only response, a single HEADERS frame ending the stream, built by `trailersOnly(for:)`.
public enum GRPCResponseHead {
    /// The headers before the message of a normal response.
    public static let headers: [HeaderField] = [
        HeaderField(":status", "200"),
        HeaderField("content-type", "application/grpc"),
        HeaderField("grpc-accept-encoding", "identity"),
    ]

    /// The trailers ending a normal response: `grpc-status`, and `grpc-message` (percent-encoded) when there is
    /// one.
    public static func trailers(for status: GRPCStatus) -> [HeaderField] {
        if status.code == .ok && status.message.isEmpty { return okTrailers }
        var fields = [HeaderField("grpc-status", String(status.code.rawValue))]
        if !status.message.isEmpty { fields.append(HeaderField("grpc-message", status.encodedMessage)) }
        return fields
    }

    /// The single header block of a trailers-only response: the response headers and the status together.
    public static func trailersOnly(for status: GRPCStatus) -> [HeaderField] {
        headers + trailers(for: status)
    }

    private static let okTrailers = [HeaderField("grpc-status", "0")]
}
