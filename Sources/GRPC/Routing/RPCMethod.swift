/// One unary RPC as the router sees it: where gRPC and REST reach it, and the shapes of its messages.
public struct RPCMethod: Sendable, CustomStringConvertible {
    /// The gRPC `:path` parts (`google.firebase.appcheck.v1.TokenExchangeService`, `GenerateAppAttestChallenge`).
    public let path: GRPCMethodPath
    /// The shape of the request message, for decoding REST bodies.
    public let requestSchema: MessageSchema
    /// The shape of the response message, for encoding REST answers.
    public let responseSchema: MessageSchema
    /// The REST bindings, the first being the primary one; empty for gRPC-only methods.
    public let restBindings: [RESTBinding]

    public init(path: GRPCMethodPath, requestSchema: MessageSchema, responseSchema: MessageSchema,
                restBindings: [RESTBinding]) {
        self.path = path
        self.requestSchema = requestSchema
        self.responseSchema = responseSchema
        self.restBindings = restBindings
    }

    public var description: String { path.description }
}
