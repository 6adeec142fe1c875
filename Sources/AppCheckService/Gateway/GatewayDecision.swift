import GRPC
import HTTP

/// What the gateway answers about one request: let it through (with the identity headers for the upstream), or
/// refuse it with an HTTP status and a body in Google's error shape.
enum GatewayDecision: Sendable {
    case allow(headers: [(String, String)])
    case deny(GatewayDenial)
}

/// Why a request is refused, as the metrics count it and as the client is answered.
struct GatewayDenial: Sendable, Error {
    /// The metric's `reason` label: `missingToken`, `tokenExpired`, `appNotAllowed`, `alreadyConsumed` ...
    let reason: String
    let status: GRPCStatus

    /// No token: 401.
    static let missingToken = GatewayDenial(reason: "missingToken", status: GRPCStatus(.unauthenticated, "Missing App Check token."))

    /// Any invalid token, whatever the reason: 403 with the message every refusal has.
    static func refused(_ reason: String) -> GatewayDenial {
        GatewayDenial(reason: reason, status: GRPCStatus(.permissionDenied, "App attestation failed."))
    }

    /// The state store or the verifier pool could not answer: fail closed, 503.
    static func unavailable(_ reason: String, _ message: String) -> GatewayDenial {
        GatewayDenial(reason: reason, status: GRPCStatus(.unavailable, message))
    }

    var httpStatus: Int { status.code.httpStatus }

    /// `{"error":{"code":403,"message":"App attestation failed.","status":"PERMISSION_DENIED"}}`.
    var jsonBody: [UInt8] { HTTPResponse.restError(status).body }
}
