import Config
import GRPC
import HTTP
import Tokens

/// What the gateway answers about one request: let it through (with the identity headers for the upstream), or
/// refuse it with an HTTP status and a body in Google's error shape; either way with what it found out.
enum GatewayDecision: Sendable {
    case allow(headers: [(String, String)], facts: GatewayFacts)
    case deny(GatewayDenial, facts: GatewayFacts)

    var facts: GatewayFacts {
        switch self {
        case .allow(_, let facts), .deny(_, let facts): facts
        }
    }
}

/// What the gateway found out about a request, as Envoy's dynamic metadata carries it for access logs and later
/// filters: the route applied, the outcome and its reason as the metrics count them, and the verified token.
struct GatewayFacts: Sendable {
    /// The route policy applied (the default route's name when the path could not be canonicalized).
    var route: String
    /// `allowed`, `denied` or `would_deny`, as `attestd_gateway_decisions_total` counts it.
    var decision: String
    /// Why it was (or would have been) refused; empty when allowed.
    var reason: String
    /// The token, when it was verified.
    var token: VerifiedAppCheckToken?
}

/// Why a request is refused, as the metrics count it and as the client is answered.
struct GatewayDenial: Sendable, Error {
    /// The metric's `reason` label: `missingToken`, `tokenExpired`, `appNotAllowed`, `alreadyConsumed` ...
    let reason: String
    let status: GRPCStatus
    /// No decision could be made (the state store or the verifier pool did not answer): an error, which Envoy
    /// tells apart from a denial so that its `failure_mode_allow` and `status_on_error` apply.
    var isOutage = false

    /// No token: 401.
    static let missingToken = GatewayDenial(reason: "missingToken", status: GRPCStatus(.unauthenticated, "Missing App Check token."))

    /// The token header came more than once (Envoy and HTTP join repeated fields as `a,b`; a JWT has no comma):
    /// which one the upstream would read is unknown, so neither is taken. 400.
    static let duplicateToken = GatewayDenial(
        reason: "duplicateToken", status: GRPCStatus(.invalidArgument, "The App Check token header was sent more than once."))

    /// The path has no canonical form (``GatewayPath``): 400.
    static func invalidPath(_ refusal: GatewayPath.Refusal) -> GatewayDenial {
        GatewayDenial(reason: "invalidPath", status: GRPCStatus(.invalidArgument, refusal.description))
    }

    /// The route's mode is `deny`: 403 whatever the token.
    static let routeDenied = GatewayDenial(reason: "routeDenied", status: GRPCStatus(.permissionDenied, "No route allows this request."))

    /// Any invalid token, whatever the reason: 403 with the message every refusal has.
    static func refused(_ reason: String) -> GatewayDenial {
        GatewayDenial(reason: reason, status: GRPCStatus(.permissionDenied, "App attestation failed."))
    }

    /// The state store or the verifier pool could not answer: fail closed, 503.
    static func unavailable(_ reason: String, _ message: String) -> GatewayDenial {
        GatewayDenial(reason: reason, status: GRPCStatus(.unavailable, message), isOutage: true)
    }

    var httpStatus: Int { status.code.httpStatus }

    /// `{"error":{"code":403,"message":"App attestation failed.","status":"PERMISSION_DENIED"}}`.
    var jsonBody: [UInt8] { HTTPResponse.restError(status).body }
}
