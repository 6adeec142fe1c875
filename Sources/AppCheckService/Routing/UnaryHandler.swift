public import AppCheckMessages
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
public struct RPCReply<Response: ProtoMessage>: Sendable {
    let complete: @Sendable (Result<Response, GRPCStatus>) -> Void

    public init(_ complete: @escaping @Sendable (Result<Response, GRPCStatus>) -> Void) {
        self.complete = complete
    }

    public func succeed(_ response: Response) { complete(.success(response)) }
    public func fail(_ status: GRPCStatus) { complete(.failure(status)) }
}
