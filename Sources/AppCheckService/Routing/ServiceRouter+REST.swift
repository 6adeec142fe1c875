import GRPC
import HTTP
import Observability

extension ServiceRouter {
    /// A REST call (JSON over HTTP/1.1 or HTTP/2), or one of the plain endpoints: `/healthz`, `/metrics`, and
    /// nginx's auth_request path. Each only where the listener serves it; elsewhere it is not found.
    /// `served`, `gateway` and `knownApps` are those of the generation the request was dispatched under.
    func serveREST(_ request: HTTPRequest, responder: HTTPResponder, served: ServedEndpoints, gateway: GatewayAuthorizer?,
                   knownApps: Set<String>, turn: LoopTurn) {
        let path = request.path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        switch path {
        case "/healthz" where served.serves(.health): return servePlain(request, responder, name: "healthz", body: health.isServing
            ? HTTPResponse.json(Array("{\"status\":\"SERVING\"}".utf8))
            : HTTPResponse(status: 503, headers: HTTPHeaders([("content-type", "application/json")]),
                           body: Array("{\"status\":\"NOT_SERVING\"}".utf8)))
        case "/metrics" where served.serves(.metrics): return servePlain(request, responder, name: "metrics", body: HTTPResponse(
            status: 200, headers: HTTPHeaders([("content-type", "text/plain; version=0.0.4; charset=utf-8")]),
            body: Array(registry.render().utf8)))
        default: break
        }
        if let gateway, path == gateway.configuration.authRequestPath, served.serves(.gateway) {
            return serveAuthRequest(request, responder: responder, gateway: gateway)
        }
        switch served.rest.route(method: request.method, target: request.path) {
        case .matched(let endpoint, _, let parameter):
            serveRESTCall(request, responder, endpoint: endpoint, pathParameters: parameter.map { [$0] } ?? [],
                          knownApps: knownApps, turn: turn)
        case .methodNotAllowed(let allowed):
            let status = GRPCStatus(.invalidArgument, "Method \(request.method) is not allowed here; use \(allowed.joined(separator: ", ")).")
            var response = HTTPResponse.restError(status, httpStatus: 405)
            response.headers.add("allow", allowed.joined(separator: ", "))
            finish(request, responder, method: RequestMetrics.otherMethod, status: status, response: response)
        case .invalidResource(let status):
            finish(request, responder, method: RequestMetrics.otherMethod, status: status, response: .restError(status))
        case .notFound:
            let status = GRPCStatus(.notFound, "No route for \(request.method) \(path).")
            finish(request, responder, method: RequestMetrics.otherMethod, status: status, response: .restError(status))
        }
    }

    private func servePlain(_ request: HTTPRequest, _ responder: HTTPResponder, name: String, body: HTTPResponse) {
        guard request.method == "GET" || request.method == "HEAD" else {
            let status = GRPCStatus(.invalidArgument, "Method \(request.method) is not allowed here; use GET.")
            var response = HTTPResponse.restError(status, httpStatus: 405)
            response.headers.add("allow", "GET, HEAD")
            finish(request, responder, method: name, status: status, response: response)
            return
        }
        var response = body
        if request.method == "HEAD" { response.body = [] }
        let code: GRPCStatus = response.status == 200 ? .ok : GRPCStatus(.unavailable, "not serving")
        finish(request, responder, method: name, status: code, response: response)
    }

    private func serveRESTCall(_ request: HTTPRequest, _ responder: HTTPResponder, endpoint: RPCEndpoint,
                               pathParameters: [PathParameter], knownApps: Set<String>, turn: LoopTurn) {
        let method = endpoint.name
        do throws(GRPCStatus) {
            if request.bodyTooLarge {
                throw GRPCStatus(.resourceExhausted, "Request body larger than \(maxMessageBytes) bytes.")
            }
            // The iOS SDK posts generateAppAttestChallenge with no body and no content type; any body must be JSON.
            if !request.body.isEmpty, !Self.isJSON(request.headers["content-type"]) {
                throw GRPCStatus(.invalidArgument, "Content-Type must be application/json.")
            }
        } catch {
            finish(request, responder, method: method, status: error, response: .restError(error))
            return
        }
        if let admission, let refusal = admission.check(
            method: method, peer: request.remoteAddress, knownApps: knownApps, app: { AppNamePeek.appID(restPath: request.path) }) {
            finish(request, responder, method: method, status: refusal, response: .restError(refusal))
            return
        }
        let deadline = deadline(for: request)
        let context = context(for: request, method: method, deadlineNanos: deadline, turn: turn)
        endpoint.invoke(request.body[...], .json(pathParameters: pathParameters), context) { [self] result, batch in
            switch inTime(result, deadline: deadline) {
            case .success(let json):
                var response = HTTPResponse.json(json)
                for (name, value) in endpoint.restHeaders { response.headers.add(name, value) }
                finish(request, responder, method: method, status: .ok, response: response, requestID: context.requestID,
                       joining: batch)
            case .failure(let status):
                finish(request, responder, method: method, status: status, response: .restError(status),
                       requestID: context.requestID, joining: batch)
            }
        }
    }

    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let media = contentType.split(separator: ";", maxSplits: 1)[0].trimmingCharacters(in: " \t").lowercased()
        return media == "application/json"
    }
}
