import GRPC
import HTTP
import Observability

extension ServiceRouter {
    /// A gRPC body's size, from its message's 5-byte prefix: a call whose prefix announces more than
    /// `maxMessageBytes` is answered RESOURCE_EXHAUSTED (and its stream reset) as soon as the prefix arrives, as
    /// grpc-go does, even while the client keeps the stream open.
    func announcedBodySize(headers: HTTPHeaders, bodyPrefix: [UInt8]) -> Int? {
        guard let contentType = headers["content-type"],
              contentType == "application/grpc" || GRPCRequestHeaders.isGRPC(contentType: contentType)
        else { return nil }
        return GRPCFraming.announcedBodySize(bodyPrefix)
    }

    /// A gRPC call: HTTP/2 only, POST, a known method, identity encoding, exactly one message within the limit.
    /// `served` and `knownApps` are those of the generation the request was dispatched under.
    func serveGRPC(_ request: HTTPRequest, responder: HTTPResponder, served: ServedEndpoints, knownApps: Set<String>,
                   turn: LoopTurn) {
        guard request.version == .http2 else {
            let status = GRPCStatus(.invalidArgument, "gRPC requires HTTP/2.")
            finish(request, responder, method: RequestMetrics.otherMethod, status: status, response: .restError(status))
            return
        }
        guard let endpoint = served.grpc[request.path] else {
            let status = GRPCStatus(.unimplemented, "Method not found: \(request.path)")
            finish(request, responder, method: RequestMetrics.otherMethod, status: status, response: .grpcTrailersOnly(status))
            return
        }
        let method = endpoint.name
        let message: ArraySlice<UInt8>
        do throws(GRPCStatus) {
            guard request.method == "POST" else { throw GRPCStatus(.unimplemented, "gRPC calls use POST, not \(request.method).") }
            if request.bodyTooLarge {
                throw GRPCStatus(.resourceExhausted, "Request message larger than \(maxMessageBytes) bytes.")
            }
            try GRPCRequestHeaders.checkEncoding(request.headers["grpc-encoding"])
            message = try GRPCFraming.deframe(request.body, maxMessageSize: maxMessageBytes)
        } catch {
            finish(request, responder, method: method, status: error, response: .grpcTrailersOnly(error))
            return
        }
        if let admission, let refusal = admission.check(
            method: method, peer: request.remoteAddress, knownApps: knownApps, app: { AppNamePeek.appID(protobuf: message) }) {
            finish(request, responder, method: method, status: refusal, response: .grpcTrailersOnly(refusal))
            return
        }
        let deadline = deadline(for: request, timeout: request.headers["grpc-timeout"].flatMap { GRPCTimeout(headerValue: $0) })
        let context = context(for: request, method: method, deadlineNanos: deadline, turn: turn)
        endpoint.invoke(message, .protobuf, context) { [self] result, batch in
            switch inTime(result, deadline: deadline) {
            case .success(let bytes):
                finish(request, responder, method: method, status: .ok, response: .grpc(framedMessage: bytes),
                       requestID: context.requestID, joining: batch)
            case .failure(let status):
                finish(request, responder, method: method, status: status, response: .grpcTrailersOnly(status),
                       requestID: context.requestID, joining: batch)
            }
        }
    }
}
