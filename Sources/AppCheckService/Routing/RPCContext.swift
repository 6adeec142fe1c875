public import Observability

/// What a handler knows about the call it serves, besides the request message.
public struct RPCContext: Sendable {
    /// The request id: the caller's `x-request-id` when it sent a sane one, else one of ours. It is in every log
    /// record about the request.
    public let requestID: String
    /// CLOCK_MONOTONIC nanoseconds after which the caller has given up (`grpc-timeout`), if it said.
    public let deadlineNanos: UInt64?
    /// A logger carrying the request id and the method.
    public let logger: Logger
    /// The `authorization` header (gRPC metadata or HTTP), for the operator RPCs that require a credential.
    public let authorization: String?

    public init(requestID: String, deadlineNanos: UInt64?, logger: Logger, authorization: String? = nil) {
        self.requestID = requestID
        self.deadlineNanos = deadlineNanos
        self.logger = logger
        self.authorization = authorization
    }
}
