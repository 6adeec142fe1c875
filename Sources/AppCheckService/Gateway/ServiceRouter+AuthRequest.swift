import GRPC
import HTTP

extension ServiceRouter {
    /// The metrics name of nginx's auth_request endpoint.
    static let authRequestMethod = "AuthRequest"

    /// nginx's `auth_request` subrequest (`GET` or `POST` on the gateway's path, over HTTP/1.1 or HTTP/2): the
    /// original request's method and URI come in the headers nginx is told to set, the token in its own header.
    /// 200 with the identity headers (for `auth_request_set`), or 401 / 403 / 503 with Google's error body. A
    /// refusal that is a 400 elsewhere (a path with no canonical form, a token header sent twice) is a 403 here:
    /// nginx's auth_request knows 401 and 403 only, and answers any other status with a 500.
    func serveAuthRequest(_ request: HTTPRequest, responder: HTTPResponder, gateway: GatewayAuthorizer) {
        let configuration = gateway.configuration
        guard request.method == "GET" || request.method == "POST" || request.method == "HEAD" else {
            let status = GRPCStatus(.invalidArgument, "Method \(request.method) is not allowed here; use GET or POST.")
            var response = HTTPResponse.restError(status, httpStatus: 405)
            response.headers.add("allow", "GET, POST, HEAD")
            finish(request, responder, method: Self.authRequestMethod, status: status, response: response)
            return
        }
        let gatewayRequest = GatewayRequest(
            method: request.headers[configuration.originalMethodHeader] ?? "GET",
            path: request.headers[configuration.originalURIHeader] ?? "/",
            routeName: request.headers[configuration.routeHeader],
            token: Self.joinedValues(request.headers, configuration.tokenHeader))
        // No inline slot: the authorizer decides on the loop only what is cheap, and sends the rest to the pool.
        let context = context(for: request, method: Self.authRequestMethod, deadlineNanos: deadline(for: request), turn: nil)
        let isHead = request.method == "HEAD"
        gateway.authorize(gatewayRequest, deadlineNanos: context.deadlineNanos, requestID: { context.requestID }) { [self] decision, batch in
            switch decision {
            case .allow(let headers, _):
                let response = HTTPResponse(status: 200, headers: HTTPHeaders(headers), body: [])
                finish(request, responder, method: Self.authRequestMethod, status: .ok, response: response,
                       requestID: context.requestID, joining: batch)
            case .deny(let denial, _):
                var response = HTTPResponse.restError(denial.status, httpStatus: denial.httpStatus == 400 ? 403 : denial.httpStatus)
                if isHead { response.body = [] }
                finish(request, responder, method: Self.authRequestMethod, status: denial.status, response: response,
                       requestID: context.requestID, joining: batch)
            }
        }
    }

    /// Every value of the field `name`, joined with commas as HTTP joins a repeated field (and as Envoy hands it
    /// over): a token header sent twice reads as `a,b`, which the authorizer refuses; nil when there is none.
    static func joinedValues(_ headers: HTTPHeaders, _ name: String) -> String? {
        var joined: String?
        for field in headers where field.name == name {
            joined = joined.map { $0 + "," + field.value } ?? field.value
        }
        return joined
    }
}
