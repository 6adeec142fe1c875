@testable import AppleStandIn
import Crypto
import Foundation
import HTTP
import Observability
import Testing
import Tokens

/// The stand-in's answers, request by request, without sockets: Apple's status codes and body texts.
@Suite("Apple stand-in answers")
struct AppleStandInHandlerTests {
    static let team = "TEAM123456"
    static let keyID = "KEY1234567"
    let key: PrivateKey
    let handler: AppleStandInHandler
    let statePath: String

    init() throws {
        key = try PrivateKey.generate(.es256)
        statePath = FileManager.default.temporaryDirectory.appendingPathComponent("standin-\(UUID().uuidString).json").path
        handler = try Self.handler(key: key, statePath: statePath)
    }

    static func handler(key: PrivateKey, statePath: String) throws -> AppleStandInHandler {
        AppleStandInHandler(
            environment: .development,
            tokenCheck: DeveloperTokenCheck(keys: [DeveloperKey(teamID: team, keyID: keyID, publicKey: key.publicKey)]),
            store: try TwoBitsStore(path: statePath), faults: FaultPlan(), logger: Logger(label: "test"))
    }

    func jwt(issuedAt: Int64 = Int64(Date().timeIntervalSince1970), keyID: String = Self.keyID) throws -> String {
        try JWS.sign(header: #"{"alg":"ES256","kid":"\#(keyID)"}"#, claims: #"{"iss":"\#(Self.team)","iat":\#(issuedAt)}"#, with: key)
    }

    func post(_ path: String, _ body: String, authorization: String?) -> (status: Int, text: String) {
        var headers = HTTPHeaders()
        if let authorization { headers.add("authorization", authorization) }
        let response = handler.respond(to: HTTPRequest(method: "POST", path: path, headers: headers, body: Array(body.utf8)))
        return (response.status, String(decoding: response.body, as: UTF8.self))
    }

    func body(device: String = "d1", timestamp: Int64? = nil, extra: String = "") -> String {
        let token = StandInDeviceToken(environment: .development, deviceID: device).base64
        let millis = timestamp ?? Int64(Date().timeIntervalSince1970 * 1000)
        return #"{"device_token":"\#(token)","transaction_id":"t-1","timestamp":\#(millis)\#(extra)}"#
    }

    @Test("bits never set: a 200 whose plain-text body is Failed to find bit state")
    func neverSet() throws {
        let answer = post("/v1/query_two_bits", body(), authorization: "Bearer \(try jwt())")
        #expect(answer.status == 200)
        #expect(answer.text == "Failed to find bit state")
    }

    @Test("bits set are answered as JSON with bit0, bit1 and a YYYY-MM last_update_time")
    func setBits() throws {
        let auth = "Bearer \(try jwt())"
        #expect(post("/v1/update_two_bits", body(extra: #","bit1":true"#), authorization: auth).status == 200)
        let answer = post("/v1/query_two_bits", body(), authorization: auth)
        #expect(answer.status == 200)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.text.utf8)) as? [String: Any])
        #expect(object["bit0"] as? Bool == false)
        #expect(object["bit1"] as? Bool == true)
        let month = try #require(object["last_update_time"] as? String)
        #expect(month.count == 7)
    }

    @Test("the bits survive a restart of the stand-in (the state file)")
    func persists() throws {
        #expect(post("/v1/update_two_bits", body(extra: #","bit0":true"#), authorization: "Bearer \(try jwt())").status == 200)
        let restarted = try Self.handler(key: key, statePath: statePath)
        let response = restarted.respond(to: HTTPRequest(
            method: "POST", path: "/v1/query_two_bits", headers: HTTPHeaders([("authorization", "Bearer \(try jwt())")]),
            body: Array(body().utf8)))
        #expect(String(decoding: response.body, as: UTF8.self).contains(#""bit0":true"#))
    }

    @Test("bits that are not booleans: 400 Missing or incorrectly formatted bits")
    func badBits() throws {
        let answer = post("/v1/update_two_bits", body(extra: #","bit0":1"#), authorization: "Bearer \(try jwt())")
        #expect(answer.status == 400)
        #expect(answer.text == "Missing or incorrectly formatted bits")
    }

    @Test("a timestamp in seconds instead of milliseconds: 400 about the time stamp")
    func secondsTimestamp() throws {
        let answer = post("/v1/validate_device_token", body(timestamp: Int64(Date().timeIntervalSince1970)), authorization: "Bearer \(try jwt())")
        #expect(answer.status == 400)
        #expect(answer.text == "Missing or incorrectly formatted time stamp")
    }

    @Test("no Bearer prefix on DeviceCheck: 400 about the authorization token")
    func bareJWTOnDeviceCheck() throws {
        let answer = post("/v1/validate_device_token", body(), authorization: try jwt())
        #expect(answer.status == 400)
        #expect(answer.text == "Missing or badly formatted authorization token")
    }

    @Test("a JWT issued more than an hour ago: 401 Unable to verify authorization token")
    func staleJWT() throws {
        let answer = post("/v1/validate_device_token", body(), authorization: "Bearer \(try jwt(issuedAt: Int64(Date().timeIntervalSince1970) - 3700))")
        #expect(answer.status == 401)
        #expect(answer.text == "Unable to verify authorization token")
    }

    @Test("a device token the stand-in does not recognise: 400 about the device token payload")
    func garbledToken() throws {
        let text = #"{"device_token":"bm90IGEgdG9rZW4=","transaction_id":"t","timestamp":\#(Int64(Date().timeIntervalSince1970 * 1000))}"#
        let answer = post("/v1/validate_device_token", text, authorization: "Bearer \(try jwt())")
        #expect(answer.status == 400)
        #expect(answer.text == "Missing or incorrectly formatted device token payload")
    }

    @Test("GET is 405 Method Not Allowed")
    func notPost() {
        let response = handler.respond(to: HTTPRequest(method: "GET", path: "/v1/query_two_bits"))
        #expect(response.status == 405)
    }

    @Test("attestationData takes the bare JWT and a base64 body; a body that is not base64 is 400 Bad Payload")
    func attestationData() throws {
        #expect(post("/v1/attestationData", "not base64!", authorization: try jwt()) == (400, "Bad Payload"))
        #expect(post("/v1/attestationData", "AAEC", authorization: "Bearer \(try jwt())").status == 401)
        #expect(post("/v1/attestationData", "AAEC", authorization: try jwt()).status == 404)
    }

    @Test("scripted faults answer first, counted, then requests are served again")
    func faults() throws {
        handler.faults.fail(status: 429, count: 2)
        let auth = "Bearer \(try jwt())"
        #expect(post("/v1/validate_device_token", body(), authorization: auth).status == 429)
        #expect(post("/v1/validate_device_token", body(), authorization: auth).status == 429)
        #expect(post("/v1/validate_device_token", body(), authorization: auth).status == 200)
        #expect(handler.requestCount.load(ordering: .relaxed) == 3)
    }

    @Test("POST /sim/faults scripts a delay and refuses one out of range; GET /sim/requests counts Apple's requests")
    func delaysAndCount() throws {
        #expect(post("/sim/faults", #"{"delayMillis":-1}"#, authorization: nil).status == 400)
        #expect(post("/sim/faults", #"{"delayMillis":10,"count":1}"#, authorization: nil).status == 204)
        #expect(handler.faults.next() == .delay(milliseconds: 10))
        #expect(handler.faults.next() == nil)
        #expect(post("/v1/validate_device_token", body(), authorization: "Bearer \(try jwt())").status == 200)
        let count = handler.respond(to: HTTPRequest(method: "GET", path: "/sim/requests"))
        #expect(String(decoding: count.body, as: UTF8.self) == #"{"count":1}"#)
    }
}
