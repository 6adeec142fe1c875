public import AppCheckMessages
public import Batching
public import GRPC

/// One unary RPC's logic, over typed messages; transports, framing and JSON are someone else's job.
///
/// `handle` runs on the event loop that received the request, so it must not block: cheap work answers at once,
/// expensive work (signature checks) goes to the verifier pool and calls `reply` from there.
public protocol UnaryHandler: Sendable {
    associatedtype Request: ProtoMessage
    associatedtype Response: ProtoMessage

    func handle(_ request: Request, context: RPCContext, reply: RPCReply<Response>)
}

/// Answers one call exactly once, from any thread.
///
/// An answer made on a thread that owns a batch (a verifier, a store's committer) joins it: the answer is queued on
/// its event loop at once, and the loop is woken when the batch flushes. Elsewhere (the event loop itself, a timer)
/// it is sent at once.
public struct RPCReply<Response: ProtoMessage>: Sendable {
    private let send: @Sendable (Result<Response, GRPCStatus>, Batch?) -> Void

    /// A reply that hands the result, and the batch it joins (nil: none), to `send`.
    public init(_ send: @escaping @Sendable (Result<Response, GRPCStatus>, Batch?) -> Void) {
        self.send = send
    }

    /// Answers `response` at once.
    public func succeed(_ response: Response) { send(.success(response), nil) }
    /// Answers `status` at once.
    public func fail(_ status: GRPCStatus) { send(.failure(status), nil) }

    /// Answers `response`, joining `batch`.
    public func succeed(_ response: Response, joining batch: Batch?) { send(.success(response), batch) }
    /// Answers `status`, joining `batch`.
    public func fail(_ status: GRPCStatus, joining batch: Batch?) { send(.failure(status), batch) }
    /// Answers `result`, joining `batch`.
    public func complete(_ result: Result<Response, GRPCStatus>, joining batch: Batch?) { send(result, batch) }
}
