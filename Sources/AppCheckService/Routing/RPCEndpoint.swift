import AppCheckMessages
import Batching
public import Config
public import GRPC

/// How a request's message arrives and how its answer must leave: protobuf for gRPC, JSON for REST.
public enum MessageEncoding: Sendable {
    case protobuf
    case json(pathParameters: [PathParameter])
}

/// An RPC the router can call without knowing its message types: it decodes the request in the caller's encoding,
/// runs the typed handler, and encodes the answer back in the same encoding (for gRPC, already framed). The answer
/// is handed to `done` with the batch it joins (see ``RPCReply``).
public struct RPCEndpoint: Sendable {
    public let method: RPCMethod
    /// The method's short name (`GenerateAppAttestChallenge`), unless the endpoint was given another: the `method`
    /// label of the request metrics.
    public let name: String
    /// Headers added to every successful REST answer (the JWKS's `cache-control`).
    public let restHeaders: [(String, String)]
    /// The part of attestd it belongs to: a listener that does not serve it answers as for an unknown method.
    public let service: ListenerServices
    let invoke: @Sendable (ArraySlice<UInt8>, MessageEncoding, RPCContext, @escaping Done) -> Void

    /// Receives an encoded answer (or a status) and the batch it joins.
    typealias Done = @Sendable (Result<[UInt8], GRPCStatus>, Batch?) -> Void

    /// An endpoint serving `method` with `handler`, as part of `service`.
    /// `name` replaces the method's short name in metrics when two services share one (`Check`).
    public init<Handler: UnaryHandler>(_ method: RPCMethod, _ handler: Handler, service: ListenerServices,
                                       restHeaders: [(String, String)] = [], name: String? = nil) {
        self.method = method
        self.name = name ?? method.path.method
        self.restHeaders = restHeaders
        self.service = service
        self.invoke = { body, encoding, context, done in
            let request: Handler.Request
            do throws(GRPCStatus) {
                switch encoding {
                case .protobuf: request = try Handler.Request(serializedBytes: body)
                case .json(let parameters): request = try Handler.Request(json: body, pathParameters: parameters)
                }
            } catch {
                done(.failure(error), nil)
                return
            }
            handler.handle(request, context: context, reply: RPCReply { result, batch in
                switch (result, encoding) {
                // gRPC answers are framed as they are encoded: one buffer, no copy.
                case (.success(let response), .protobuf): done(.success(response.framedBytes()), batch)
                case (.success(let response), .json):
                    // A value with no JSON form (a Timestamp out of range, taken from a receipt) is a bug to report
                    // as INTERNAL, not a reason to stop serving.
                    do throws(GRPCStatus) {
                        done(.success(try response.jsonBytes()), batch)
                    } catch {
                        context.logger.error("answer has no JSON form", [("error", error.description)])
                        done(.failure(GRPCStatus(.internal, "The answer could not be encoded as JSON.", cause: error)), batch)
                    }
                case (.failure(let status), _): done(.failure(status), batch)
                }
            })
        }
    }

    /// An endpoint that answers UNIMPLEMENTED: for the providers attestd does not serve (Play Integrity,
    /// reCAPTCHA, SafetyNet) and for RPCs that a later version will serve.
    public static func unimplemented(_ method: RPCMethod, service: ListenerServices, reason: String) -> RPCEndpoint {
        RPCEndpoint(method: method, service: service) { _, _, _, done in done(.failure(GRPCStatus(.unimplemented, reason)), nil) }
    }

    private init(method: RPCMethod, service: ListenerServices, invoke: @escaping @Sendable (ArraySlice<UInt8>, MessageEncoding, RPCContext, @escaping Done) -> Void) {
        self.method = method
        self.name = method.path.method
        self.restHeaders = []
        self.service = service
        self.invoke = invoke
    }
}
