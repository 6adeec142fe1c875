import AppCheckMessages
import GRPC
import HTTP

/// How requests are carried: gRPC (5-byte prefix + protobuf, status in trailers) or Google-style REST/JSON.
enum Framing: String, Sendable {
    case grpc, rest
}

/// The requests of one app on one server in one framing: paths, content type, request encoding and response
/// decoding.
struct Endpoint: Sendable {
    let framing: Framing
    /// `projects/{number}/apps/{app id}`.
    let app: String
    let authority: String
    /// "https" over TLS, "http" over h2c.
    var scheme = "http"

    var contentType: String { framing == .grpc ? "application/grpc" : "application/json" }

    func path(_ kind: RequestKind) -> String {
        switch (framing, kind) {
        case (.grpc, .challenge): "/google.firebase.appcheck.v1.TokenExchangeService/GenerateAppAttestChallenge"
        case (.grpc, .attestation): "/google.firebase.appcheck.v1.TokenExchangeService/ExchangeAppAttestAttestation"
        case (.grpc, .assertion): "/google.firebase.appcheck.v1.TokenExchangeService/ExchangeAppAttestAssertion"
        case (.rest, .challenge): "/v1/\(app):generateAppAttestChallenge"
        case (.rest, .attestation): "/v1/\(app):exchangeAppAttestAttestation"
        case (.rest, .assertion): "/v1/\(app):exchangeAppAttestAssertion"
        }
    }

    /// The request headers for `kind`, as every request of that kind is sent.
    func headers(_ kind: RequestKind) -> HTTP2RequestHeaders {
        var fields = [
            (name: ":method", value: "POST"), (":scheme", scheme), (":path", path(kind)), (":authority", authority),
            ("content-type", contentType),
        ]
        if framing == .grpc { fields.append(("te", "trailers")) }
        return HTTP2RequestHeaders(fields, contentLength: true)
    }

    /// A request body: over REST the app is bound from the path, so the JSON body leaves it out.
    func body(_ message: some ProtoMessage) -> [UInt8] {
        switch framing {
        case .grpc: return message.framedBytes()
        case .rest:
            do {
                return try message.jsonBytes()
            } catch {
                // The bench builds its requests from values it chose: one with no JSON form is a bug in the bench.
                fatalError("attestd-bench built a request with no JSON form: \(error)")
            }
        }
    }

    func challengeRequest() -> [UInt8] {
        body(GenerateAppAttestChallengeRequest(app: framing == .grpc ? app : ""))
    }

    func attestationRequest(statement: [UInt8], challenge: [UInt8], keyID: [UInt8]) -> [UInt8] {
        body(ExchangeAppAttestAttestationRequest(
            app: framing == .grpc ? app : "", attestationStatement: statement, challenge: challenge, keyID: keyID))
    }

    func assertionRequest(artifact: [UInt8], assertion: [UInt8], challenge: [UInt8]) -> [UInt8] {
        body(ExchangeAppAttestAssertionRequest(
            app: framing == .grpc ? app : "", artifact: artifact, assertion: assertion, challenge: challenge))
    }

    /// Decodes a successful response body.
    func decode<Message: ProtoMessage>(_ type: Message.Type, from body: [UInt8]) throws(GRPCStatus) -> Message {
        switch framing {
        case .grpc:
            let message = try GRPCFraming.deframe(body, maxMessageSize: 1 << 20)
            return try Message(serializedBytes: message)
        case .rest:
            return try Message(json: body[...])
        }
    }
}
