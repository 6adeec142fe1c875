import AppCheckMessages
import GRPC

/// `envoy.service.auth.v3.Authorization/Check`, Envoy's ext_authz over gRPC. The call itself always succeeds. A
/// refusal is a CheckResponse whose status is not OK, carrying the HTTP answer (400, 401 or 403 with a JSON body
/// in Google's error shape) that Envoy sends downstream. When no decision can be made (the state store or the
/// verifier pool did not answer), the answer is an `error_response` (status UNAVAILABLE, 503), which Envoy counts as
/// an error rather than a denial, so that its `failure_mode_allow` and `status_on_error` apply.
///
/// Every answer carries `dynamic_metadata` (``metadata(_:)``), which Envoy keeps under `envoy.filters.http.ext_authz`.
struct EnvoyCheckHandler: UnaryHandler {
    /// Envoy's context extension that names the route policy (set per route in Envoy's configuration).
    static let routeExtension = "attestd_route"
    /// The `method` label of its requests in the metrics: its method is called `Check`, like the health check's.
    static let metricsName = "AuthorizationCheck"

    let gateway: GatewayAuthorizer

    /// The endpoint, under its own metrics name: its method is called `Check`, like the health check's.
    static func endpoint(_ gateway: GatewayAuthorizer) -> RPCEndpoint {
        let method = RPCMethod(
            path: GRPCMethodPath(service: "envoy.service.auth.v3.Authorization", method: "Check"),
            requestSchema: EnvoyCheckRequest.schema, responseSchema: EnvoyCheckResponse.schema, restBindings: [])
        return RPCEndpoint(method, EnvoyCheckHandler(gateway: gateway), service: .gateway,
                           name: metricsName)
    }

    func handle(_ request: EnvoyCheckRequest, context: RPCContext, reply: RPCReply<EnvoyCheckResponse>) {
        let http = request.attributes?.request?.http ?? EnvoyAttributeContext.HttpRequest()
        let configuration = gateway.configuration
        // The route is named only by Envoy's own configuration (a per-route context extension), never by a request
        // header: `headers` are the client's, and a client must not pick a laxer policy (a monitor-mode route).
        // Envoy joins a repeated header's values with commas, which the authorizer refuses in a token.
        let gatewayRequest = GatewayRequest(
            method: http.method, path: http.path,
            routeName: request.attributes?.contextExtensions[Self.routeExtension],
            token: http.allHeaders[configuration.tokenHeader])
        gateway.authorize(gatewayRequest, deadlineNanos: context.deadlineNanos, requestID: { context.requestID }) { decision, batch in
            let metadata = Self.metadata(decision.facts)
            switch decision {
            case .allow(let headers, _):
                // Without a verified token (monitor mode), whatever the client sent under the identity headers'
                // names is removed rather than passed upstream as if attestd had vouched for it.
                let identity = [configuration.appIDHeader, configuration.tokenIDHeader]
                reply.succeed(EnvoyCheckResponse(status: RPCStatus(), httpResponse: .okResponse(EnvoyOkHttpResponse(
                    headers: headers.map { EnvoyHeaderValueOption($0.0, $0.1) },
                    headersToRemove: headers.isEmpty ? identity : [])), dynamicMetadata: metadata), joining: batch)
            case .deny(let denial, _) where denial.isOutage:
                reply.succeed(EnvoyCheckResponse(status: Self.status(denial), httpResponse: .errorResponse(Self.answer(denial)),
                                                 dynamicMetadata: metadata), joining: batch)
            case .deny(let denial, _):
                reply.succeed(EnvoyCheckResponse(status: Self.status(denial), httpResponse: .deniedResponse(Self.answer(denial)),
                                                 dynamicMetadata: metadata), joining: batch)
            }
        }
    }

    private static let jsonHeaders = [EnvoyHeaderValueOption("content-type", "application/json; charset=UTF-8")]

    /// The `google.rpc.Status` of a refusal.
    private static func status(_ denial: GatewayDenial) -> RPCStatus {
        RPCStatus(code: Int32(denial.status.code.rawValue), message: denial.status.message)
    }

    /// The HTTP answer Envoy sends downstream for a refusal.
    private static func answer(_ denial: GatewayDenial) -> EnvoyDeniedHttpResponse {
        EnvoyDeniedHttpResponse(status: EnvoyHttpStatus(code: EnvoyStatusCode(rawValue: Int32(denial.httpStatus))),
                                headers: jsonHeaders, body: String(decoding: denial.jsonBody, as: UTF8.self))
    }

    /// The dynamic metadata of an answer: `route` (the policy applied), `decision` (`allowed`, `denied`,
    /// `would_deny`), `reason` (why refused, when refused or would-be refused) and, when the token was verified,
    /// `app_id`, `token_id` (its `jti`) and `limited_use` (a boolean).
    static func metadata(_ facts: GatewayFacts) -> ProtoStruct {
        var fields: [String: ProtoValue] = ["route": .string(facts.route), "decision": .string(facts.decision)]
        if !facts.reason.isEmpty { fields["reason"] = .string(facts.reason) }
        if let token = facts.token {
            fields["app_id"] = .string(token.appID)
            fields["token_id"] = .string(token.jti)
            fields["limited_use"] = .bool(GatewayAuthorizer.isLimitedUse(token))
        }
        return ProtoStruct(fields: fields)
    }
}
