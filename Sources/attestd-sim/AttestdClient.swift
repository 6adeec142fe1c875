import AppAttest
import Basics
import FoundationEssentials

/// attestd's App Attest REST calls, sent as the Firebase iOS SDK sends them: POST, snake_case JSON keys, standard
/// base64 bytes, the project id in the path.
struct AttestdClient {
    struct Token: Decodable {
        var token: String
        var ttl: String?
    }

    struct Challenge: Decodable {
        var challenge: String
        var ttl: String?
    }

    struct AttestationExchange: Decodable {
        var artifact: String
        var appCheckToken: Token?
    }

    private struct ErrorReply: Decodable {
        struct Detail: Decodable {
            var code: Int?
            var message: String?
            var status: String?
        }
        var error: Detail
    }

    let http: HTTPClient
    let project: String
    let app: String
    /// The bundle id, sent as `X-Ios-Bundle-Identifier` like the SDK does.
    let bundleID: String

    /// `/v1/projects/{project}/apps/{app}`.
    var appPath: String { "/v1/projects/\(project)/apps/\(app)" }

    func generateChallenge() throws(CommandError) -> Challenge {
        try post(":generateAppAttestChallenge", body: nil)
    }

    func exchangeAttestation(keyID: [UInt8], attestation: [UInt8], challenge: [UInt8]) throws(CommandError) -> AttestationExchange {
        try post(":exchangeAppAttestAttestation", body: JSONObject([
            ("key_id", .string(Base64.standard.encode(keyID))),
            ("attestation_statement", .string(Base64.standard.encode(attestation))),
            ("challenge", .string(Base64.standard.encode(challenge))),
            ("limited_use", .bool(false)),
        ]))
    }

    func exchangeAssertion(artifact: [UInt8], challenge: [UInt8], assertion: [UInt8]) throws(CommandError) -> Token {
        try post(":exchangeAppAttestAssertion", body: JSONObject([
            ("artifact", .string(Base64.standard.encode(artifact))),
            ("challenge", .string(Base64.standard.encode(challenge))),
            ("assertion", .string(Base64.standard.encode(assertion))),
            ("limited_use", .bool(false)),
        ]))
    }

    /// POSTs `body` (none: an empty body, as the SDK sends for a challenge) to the app's `method` and decodes the
    /// reply; a non-2xx answer becomes a failure carrying the server's status and message.
    private func post<Reply: Decodable>(_ method: String, body: JSONObject?) throws(CommandError) -> Reply {
        let path = appPath + method
        let response = try http.send(
            method: "POST", path: path,
            headers: [("Content-Type", "application/json"), ("X-Ios-Bundle-Identifier", bundleID), ("User-Agent", "attestd-sim")],
            body: body.map { Array($0.text.utf8) } ?? [])
        let data = Data(response.body)
        guard (200..<300).contains(response.status) else {
            let detail = (try? JSONDecoder().decode(ErrorReply.self, from: data)).map {
                "\($0.error.status ?? "?"): \($0.error.message ?? "")"
            } ?? String(decoding: response.body.prefix(200), as: UTF8.self)
            throw .failure("POST \(http.url(path)): HTTP \(response.status) \(detail)")
        }
        do {
            return try JSONDecoder().decode(Reply.self, from: data)
        } catch {
            throw .failure("POST \(http.url(path)): unexpected reply \(String(decoding: response.body.prefix(200), as: UTF8.self))")
        }
    }
}
