public import HTTP
public import Observability

/// What a handler knows about the call it serves, besides the request message.
///
/// Building one costs nothing beyond copying a few references: the request id's text and the request's logger are
/// made only when something asks for them, which on the hot path (a successful challenge) nothing does.
public struct RPCContext: Sendable {
    /// CLOCK_MONOTONIC nanoseconds after which the caller has given up (`grpc-timeout`), if it said.
    public let deadlineNanos: UInt64?
    /// The `authorization` header (gRPC metadata or HTTP), for the RPCs that require a caller credential.
    public let authorization: String?
    /// The client certificate verified in the TLS handshake (mutual TLS), the other caller credential.
    public let clientCertificate: ClientCertificate?
    /// The event loop turn the call arrived in, which may let short work run inline (nil: none may).
    public let turn: LoopTurn?
    private let id: RequestID
    private let method: String
    private let baseLogger: Logger

    public init(requestID: String, deadlineNanos: UInt64?, logger: Logger, authorization: String? = nil,
                clientCertificate: ClientCertificate? = nil, turn: LoopTurn? = nil) {
        self.init(id: .given(requestID), method: "", deadlineNanos: deadlineNanos, logger: logger,
                  authorization: authorization, clientCertificate: clientCertificate, turn: turn)
    }

    init(id: RequestID, method: String, deadlineNanos: UInt64?, logger: Logger, authorization: String?,
         clientCertificate: ClientCertificate?, turn: LoopTurn?) {
        self.turn = turn
        self.id = id
        self.method = method
        self.deadlineNanos = deadlineNanos
        self.baseLogger = logger
        self.authorization = authorization
        self.clientCertificate = clientCertificate
    }

    /// The request id: the caller's `x-request-id` when it sent a sane one, else one of ours. It is in every log
    /// record about the request.
    public var requestID: String { id.text }

    /// A logger carrying the request id and the method.
    public var logger: Logger {
        let logger = baseLogger.with("requestId", requestID)
        return method.isEmpty ? logger : logger.with("method", method)
    }
}

/// A request id: the caller's, or a per-process prefix and a counter, formatted only when needed.
enum RequestID: Sendable {
    case given(String)
    case generated(prefix: String, number: UInt64)

    var text: String {
        switch self {
        case .given(let text): text
        case .generated(let prefix, let number): prefix + "-" + String(number, radix: 16)
        }
    }
}
