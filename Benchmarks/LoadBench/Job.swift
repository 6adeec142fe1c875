/// The kinds of request the bench sends.
enum RequestKind: Int, CaseIterable, Sendable {
    case challenge, attestation, assertion

    var name: String {
        switch self {
        case .challenge: "challenge"
        case .attestation: "attestation"
        case .assertion: "assertion"
        }
    }
}

/// One request ready to send: its kind, its encoded body, and what the workload needs back on completion.
struct Job: Sendable {
    var kind: RequestKind
    var body: [UInt8]
    /// The assertion key lane that must get this job's completion before its next assertion goes out (-1: none).
    var lane: Int = -1
    /// A resend of a request that already succeeded: the server must refuse it.
    var isReplay = false
    /// Keep the response body (setup requests that read challenges and artifacts).
    var wantsBody = false
    /// Index of a setup request in its batch.
    var tag = 0
}

/// How one request ended.
struct Outcome: Sendable {
    var httpStatus = 0
    /// grpc-status, or -1 when the response carried none (REST, or a broken gRPC response).
    var grpcStatus = -1
    /// RST_STREAM code (0: closed normally), or `connectionLost`.
    var resetCode: UInt32 = 0
    var body: [UInt8] = []
    var message = ""

    static let connectionLost: UInt32 = 0xFFFF_FFFF

    func isOK(framing: Framing) -> Bool {
        resetCode == 0 && httpStatus == 200 && (framing == .rest || grpcStatus == 0)
    }

    /// True for the contract's refusal: PERMISSION_DENIED (gRPC 7, HTTP 403).
    func isRefused(framing: Framing) -> Bool {
        resetCode == 0 && (framing == .grpc ? grpcStatus == 7 : httpStatus == 403)
    }

    /// A short name for counting: `OK`, `grpc 7 PERMISSION_DENIED`, `http 503`, `reset 2`, `connection lost`.
    func statusKey(framing: Framing) -> String {
        if resetCode == Self.connectionLost { return "connection lost" }
        if resetCode != 0 { return "reset \(resetCode)" }
        if isOK(framing: framing) { return "OK" }
        if framing == .grpc && grpcStatus >= 0 {
            return "grpc \(grpcStatus) \(GRPCStatusNames.name(grpcStatus))"
        }
        return "http \(httpStatus)"
    }
}

enum GRPCStatusNames {
    private static let names = [
        "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
        "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
        "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
    ]

    static func name(_ code: Int) -> String { code >= 0 && code < names.count ? names[code] : "?" }
}
