/// The outcome of an RPC as gRPC reports it: a `google.rpc.Code`, a message for the client, and, for the log only,
/// the error that caused it.
///
/// Statuses compare by code: the message is for people, the cause for operators.
public struct GRPCStatus: Error, Sendable, CustomStringConvertible {
    /// What kind of failure (or `.ok`).
    public var code: Code
    /// Text sent to the client in `grpc-message` (percent-encoded) or in the REST error body.
    public var message: String
    /// The underlying error, logged but never sent to the client.
    public var cause: (any Error & Sendable)?

    /// A status with `code`, the client-visible `message` and an optional `cause` kept for the log.
    public init(_ code: Code, _ message: String = "", cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// The status of a successful RPC.
    public static let ok = GRPCStatus(.ok)

    public var description: String {
        var text = message.isEmpty ? code.name : "\(code.name): \(message)"
        if let cause { text += " (cause: \(cause))" }
        return text
    }
}
