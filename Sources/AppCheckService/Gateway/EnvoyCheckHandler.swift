import AppCheckMessages
import GRPC

/// `envoy.service.auth.v3.Authorization/Check`, Envoy's ext_authz over gRPC. The call itself always succeeds: a
/// refusal is a CheckResponse whose status is not OK, carrying the HTTP answer (401, 403 or 503 with a JSON body
/// in Google's error shape) that Envoy sends downstream.
struct EnvoyCheckHandler: UnaryHandler {
    /// Envoy's context extension that names the route policy (set per route in Envoy's configuration).
    static let routeExtension = "attestd_route"

    let gateway: GatewayAuthorizer

    /// The endpoint, under its own metrics name: its method is called `Check`, like the health check's.
    static func endpoint(_ gateway: GatewayAuthorizer) -> RPCEndpoint {
        let method = RPCMethod(
            path: GRPCMethodPath(service: "envoy.service.auth.v3.Authorization", method: "Check"),
            requestSchema: EnvoyCheckRequest.schema, responseSchema: EnvoyCheckResponse.schema, restBindings: [])
        return RPCEndpoint(method, EnvoyCheckHandler(gateway: gateway), name: "AuthorizationCheck")
    }

    func handle(_ request: EnvoyCheckRequest, context: RPCContext, reply: RPCReply<EnvoyCheckResponse>) {
        let http = request.attributes.http
        let configuration = gateway.configuration
        // The route is named only by Envoy's own configuration (a per-route context extension), never by a request
        // header: `headers` are the client's, and a client must not pick a laxer policy (a monitor-mode route).
        let gatewayRequest = GatewayRequest(
            method: http.method, path: http.path,
            routeName: request.attributes.contextExtensions[Self.routeExtension],
            token: http.headers[configuration.tokenHeader])
        gateway.authorize(gatewayRequest, deadlineNanos: context.deadlineNanos, requestID: { context.requestID }) { decision in
            switch decision {
            case .allow(let headers):
                // Without a verified token (monitor mode), whatever the client sent under the identity headers'
                // names is removed rather than passed upstream as if attestd had vouched for it.
                let identity = [configuration.appIDHeader, configuration.tokenIDHeader]
                reply.succeed(EnvoyCheckResponse(statusCode: 0, ok: .init(
                    headers: headers.map { EnvoyHeaderValueOption($0.0, $0.1) },
                    headersToRemove: headers.isEmpty ? identity : [])))
            case .deny(let denial):
                reply.succeed(EnvoyCheckResponse(
                    statusCode: Int32(denial.status.code.rawValue), statusMessage: denial.status.message,
                    denied: .init(
                        httpStatus: Int32(denial.httpStatus),
                        headers: [EnvoyHeaderValueOption("content-type", "application/json; charset=UTF-8")],
                        body: String(decoding: denial.jsonBody, as: UTF8.self))))
            }
        }
    }
}
