import Basics
import Batching
import Config
import GRPC
import HTTP
import Observability
import Synchronization

/// The one `HTTPHandler` of attestd: tells gRPC from REST from the plain endpoints, and hands each RPC to its
/// endpoint in the encoding it arrived in. It runs on the event loops, so everything here is cheap.
final class ServiceRouter: HTTPHandler {
    /// The generation being served: taken once per request, replaced whole by a reload.
    private let current: Mutex<ServingGeneration>
    let maxMessageBytes: Int
    let metrics: RequestMetrics
    let registry: MetricsRegistry
    let health: HealthState
    let logger: Logger
    /// Rate limits and load shedding, consulted before an RPC's handler runs (see `Admission/`).
    let admission: AdmissionControl?
    /// The deadline of a request that names none (`limits.defaultDeadlineSeconds`; see `ServiceRouter+Deadline`).
    let defaultDeadline: GRPCTimeout
    private let requestIDs = RequestIDGenerator()

    init(
        generation: ServingGeneration, maxMessageBytes: Int, metrics: RequestMetrics, registry: MetricsRegistry,
        health: HealthState, logger: Logger, admission: AdmissionControl? = nil, defaultDeadlineSeconds: Int = 15
    ) {
        current = Mutex(generation)
        self.maxMessageBytes = maxMessageBytes
        self.metrics = metrics
        self.registry = registry
        self.health = health
        self.logger = logger
        self.admission = admission
        defaultDeadline = GRPCTimeout(nanoseconds: Int64(defaultDeadlineSeconds) * 1_000_000_000)
    }

    /// The generation new requests are served by.
    var generation: ServingGeneration { current.withLock { $0 } }

    /// Serves every request dispatched from now on by `generation`; requests already dispatched keep theirs.
    func install(_ generation: ServingGeneration) {
        current.withLock { $0 = generation }
    }

    func handle(_ request: HTTPRequest, responder: HTTPResponder, turn: LoopTurn) {
        // Read once: this request is served by this generation to its end, whatever a reload installs meanwhile.
        let generation = self.generation
        let served = generation.served(request)
        let contentType = request.headers["content-type"]
        // Every gRPC client sends exactly "application/grpc"; the general check handles the variants.
        if let contentType, contentType == "application/grpc" || GRPCRequestHeaders.isGRPC(contentType: contentType) {
            serveGRPC(request, responder: responder, served: served, knownApps: generation.knownApps, turn: turn)
        } else if served.grpc[request.path] != nil {
            // A gRPC method's path without gRPC's content type: the gRPC spec's answer is 415.
            let status = GRPCStatus(.invalidArgument, "Content-Type must be application/grpc for \(request.path).")
            finish(request, responder, method: RequestMetrics.otherMethod, status: status,
                   response: HTTPResponse.restError(status, httpStatus: 415))
        } else {
            serveREST(request, responder: responder, served: served, gateway: generation.gateway,
                      knownApps: generation.knownApps, turn: turn)
        }
    }

    /// Sends `response` (its loop's wake-up joining `batch`, when the answer is made on a thread that has one),
    /// records the request in the metrics, and logs it (failures at info, the rest at debug).
    func finish(_ request: HTTPRequest, _ responder: HTTPResponder, method: String, status: GRPCStatus,
                response: HTTPResponse, requestID: String? = nil, joining batch: Batch? = nil) {
        responder.respond(response, joining: batch)
        let seconds = Double(MonotonicClock.nanoseconds() &- request.receivedAtNanos) / 1e9
        metrics.record(method: method, code: status.code.name, seconds: seconds)
        let level: LogLevel = status.code == .ok ? .debug : .info
        guard logger.isEnabled(level) else { return }
        logger.log(level, "request", [
            ("requestId", requestID ?? requestIDs.id(for: request).text), ("method", method), ("path", request.path),
            ("code", status.code.name), ("message", status.message), ("http", String(response.status)),
            ("peer", request.remoteAddress), ("micros", String(Int(seconds * 1e6))),
        ])
    }

    func context(for request: HTTPRequest, method: String, deadlineNanos: UInt64?, turn: LoopTurn?) -> RPCContext {
        RPCContext(id: requestIDs.id(for: request), method: method, deadlineNanos: deadlineNanos, logger: logger,
                   authorization: request.headers["authorization"], clientCertificate: request.clientCertificate,
                   turn: turn)
    }
}

/// Request ids: the caller's `x-request-id` when it is short and printable, else a per-process random prefix and
/// a counter, which is unique without any coordination between loops.
final class RequestIDGenerator: Sendable {
    private let prefix: String
    private let counter = Atomic<UInt64>(0)

    init() {
        prefix = String(UInt64.random(in: 0..<(1 << 32)), radix: 16)
    }

    func id(for request: HTTPRequest) -> RequestID {
        if let given = request.headers["x-request-id"], !given.isEmpty, given.utf8.count <= 64,
           given.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) {
            return .given(given)
        }
        return .generated(prefix: prefix, number: counter.add(1, ordering: .relaxed).newValue)
    }
}
