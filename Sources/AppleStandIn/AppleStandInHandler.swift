import Basics
import Foundation
import HTTP
import Observability
import Synchronization

/// Serves Apple's DeviceCheck endpoints and the risk-metric endpoint with Apple's status codes and body texts
/// (reference `apple-app-attest.md` §3.4 and §5), plus `POST /sim/faults` to script failures and delays from outside
/// and `GET /sim/requests` to count the requests that reached Apple's endpoints.
final class AppleStandInHandler: HTTPHandler {
    let environment: AppleEnvironment
    let tokenCheck: DeveloperTokenCheck
    let store: TwoBitsStore
    let faults: FaultPlan
    /// Nil: no receipt CA was given, and every well-formed receipt is answered 404 (no data).
    let riskMetric: RiskMetricService?
    let logger: Logger
    /// Requests to Apple's endpoints seen so far, failed ones included, so tests can count retries.
    let requestCount = Atomic<Int>(0)
    /// How far the request's millisecond timestamp may be from the stand-in's clock.
    static let allowedSkewMillis: Int64 = 5 * 60 * 1000

    init(
        environment: AppleEnvironment, tokenCheck: DeveloperTokenCheck, store: TwoBitsStore, faults: FaultPlan,
        riskMetric: RiskMetricService? = nil, logger: Logger
    ) {
        self.riskMetric = riskMetric
        self.environment = environment
        self.tokenCheck = tokenCheck
        self.store = store
        self.faults = faults
        self.logger = logger
    }

    func handle(_ request: HTTPRequest, responder: HTTPResponder, turn: LoopTurn) {
        let (response, delay) = serve(request)
        logger.debug("apple stand-in", [("path", request.path), ("status", String(response.status))])
        guard let delay else {
            responder.respond(response)
            return
        }
        // A slow or hanging Apple: answered later from a timer, the loop free to serve others meanwhile. A client
        // that gave up has closed its connection by then, and the answer is dropped.
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(delay)) { responder.respond(response) }
    }

    /// The answer to `request`, as ``handle(_:responder:)`` gives it, but at once: a scripted delay is consumed
    /// and not waited for.
    func respond(to request: HTTPRequest) -> HTTPResponse { serve(request).response }

    /// The answer to `request`, and how many milliseconds to hold it back if a delay is scripted.
    private func serve(_ request: HTTPRequest) -> (response: HTTPResponse, delay: Int?) {
        let path = request.path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.path
        if path == "/sim/faults" { return (scriptFaults(request), nil) }
        if path == "/sim/receipts" { return (scriptReceipts(request), nil) }
        if path == "/sim/requests" {
            let json = "{\"count\":\(requestCount.load(ordering: .relaxed))}"
            return (HTTPResponse(status: 200, headers: HTTPHeaders([("content-type", "application/json")]), body: Array(json.utf8)), nil)
        }
        let endpoints = ["/v1/validate_device_token", "/v1/query_two_bits", "/v1/update_two_bits", "/v1/attestationData"]
        guard endpoints.contains(path) else { return (Self.text(404, "Not Found"), nil) }
        requestCount.add(1, ordering: .relaxed)
        guard request.method == "POST" else { return (Self.text(405, "Method Not Allowed"), nil) }
        var delay: Int?
        switch faults.next() {
        case .fail(let status)?:
            return (Self.text(status, status == 429 ? "Too Many Requests" : "Service Unavailable"), nil)
        case .delay(let milliseconds)?:
            delay = milliseconds
        case nil:
            break
        }
        let now = TimeSource.system.unixSeconds()
        if path == "/v1/attestationData" { return (attestationData(request, now: now), delay) }
        return (deviceCheck(path: path, request, now: now), delay)
    }

    private func deviceCheck(path: String, _ request: HTTPRequest, now: Int64) -> HTTPResponse {
        let authorization = request.headers["authorization"]
        guard let authorization, authorization.hasPrefix("Bearer ") else {
            return Self.text(400, "Missing or badly formatted authorization token")
        }
        let team: String
        switch tokenCheck.check(String(authorization.dropFirst("Bearer ".count)), now: now) {
        case .malformed: return Self.text(400, "Missing or badly formatted authorization token")
        case .unverified: return Self.text(401, "Unable to verify authorization token")
        case .accepted(let teamID): team = teamID
        }
        guard let body = DeviceCheckRequestBody.parse(request.body),
              let tokenText = body.deviceToken, let token = StandInDeviceToken(base64: tokenText),
              !token.isExpired, token.environment == environment
        else { return Self.text(400, "Missing or incorrectly formatted device token payload") }
        guard let transactionID = body.transactionID, !transactionID.isEmpty else {
            return Self.text(400, "Invalid or missing transaction id")
        }
        // Milliseconds: a value in seconds is ~1000 times too small and so far outside the skew window.
        guard let timestamp = body.timestamp, abs(timestamp - now * 1000) <= Self.allowedSkewMillis else {
            return Self.text(400, "Missing or incorrectly formatted time stamp")
        }
        switch path {
        case "/v1/validate_device_token":
            return HTTPResponse(status: 200)
        case "/v1/query_two_bits":
            guard let bits = store.bits(team: team, device: token.deviceID) else {
                // Apple's plain-text answer for bits never set: a 200 that is not JSON (pitfall 14).
                return Self.text(200, "Failed to find bit state")
            }
            let json = "{\"bit0\":\(bits.bit0),\"bit1\":\(bits.bit1),\"last_update_time\":\"\(bits.lastUpdateTime)\"}"
            return HTTPResponse(status: 200, headers: HTTPHeaders([("content-type", "application/json")]), body: Array(json.utf8))
        default:
            guard !body.hasMalformedBits else { return Self.text(400, "Missing or incorrectly formatted bits") }
            do {
                try store.update(team: team, device: token.deviceID, bit0: body.bit0, bit1: body.bit1, month: Self.month(now))
            } catch {
                logger.error("could not persist two-bit state", [("error", "\(error)")])
                return Self.text(500, "Internal Server Error")
            }
            return HTTPResponse(status: 200)
        }
    }

    /// The risk-metric endpoint: the bare JWT (no `Bearer`), a standard-base64 receipt as the body.
    private func attestationData(_ request: HTTPRequest, now: Int64) -> HTTPResponse {
        guard case .accepted(let team) = tokenCheck.check(request.headers["authorization"], now: now) else {
            return Self.text(401, "Unable to verify authorization token")
        }
        let text = String(decoding: request.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty, let receipt = Base64.standard.decode(text) else { return Self.text(400, "Bad Payload") }
        guard let riskMetric else { return Self.text(404, "Not Found") }
        switch riskMetric.refresh(receipt, team: team, now: now) {
        case .newReceipt(let der): return Self.text(200, Base64.standard.encode(der))
        case .notModified: return HTTPResponse(status: 304)
        case .noData: return Self.text(404, "Not Found")
        case .badPayload: return Self.text(400, "Bad Payload")
        case .incorrectEnvironment: return Self.text(400, "Incorrect Environment")
        case .wrongTeam: return Self.text(401, "Unable to verify authorization token")
        }
    }

    /// `POST /sim/faults` with `{"status": 429, "count": 2}` (no count: every request), `{"delayMillis": 5000}`
    /// (served that much later: an Apple that hangs; `count` as for a status) or `{"clear": true}`.
    private func scriptFaults(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "POST",
              let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any]
        else { return Self.text(400, "expected a JSON object") }
        if object["clear"] != nil {
            faults.clear()
            return HTTPResponse(status: 204)
        }
        if let delay = object["delayMillis"] {
            guard let milliseconds = (delay as? NSNumber)?.intValue, (0...3_600_000).contains(milliseconds) else {
                return Self.text(400, "delayMillis must be 0...3600000")
            }
            faults.delay(milliseconds: milliseconds, count: (object["count"] as? NSNumber)?.intValue)
            return HTTPResponse(status: 204)
        }
        guard let status = (object["status"] as? NSNumber)?.intValue, (400...599).contains(status) else {
            return Self.text(400, "status must be 400...599")
        }
        faults.fail(status: status, count: (object["count"] as? NSNumber)?.intValue)
        return HTTPResponse(status: 204)
    }

    /// `POST /sim/receipts` with any of `{"answer": "normal"|"notModified"|"noData"|"badSignature",
    /// "riskMetric": 3, "notBeforeSeconds": 0}`.
    private func scriptReceipts(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "POST",
              let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any]
        else { return Self.text(400, "expected a JSON object") }
        guard let controls = riskMetric?.controls else { return Self.text(409, "no receipt CA: start with --receipt-ca") }
        if let name = object["answer"] {
            guard let answer = (name as? String).flatMap(RiskMetricControls.Answer.init(rawValue:)) else {
                return Self.text(400, "answer must be one of \(RiskMetricControls.Answer.allCases.map(\.rawValue))")
            }
            controls.answer = answer
        }
        if let metric = object["riskMetric"] {
            guard let value = (metric as? NSNumber)?.intValue, value >= 0 else { return Self.text(400, "riskMetric must be >= 0") }
            controls.riskMetric = value
        }
        if let seconds = object["notBeforeSeconds"] {
            guard let value = (seconds as? NSNumber)?.int64Value, value >= 0 else {
                return Self.text(400, "notBeforeSeconds must be >= 0")
            }
            controls.notBeforeSeconds = value
        }
        return HTTPResponse(status: 204)
    }

    static func month(_ unixSeconds: Int64) -> String {
        let date = CivilDate(unixSeconds: unixSeconds)
        return "\(date.year)-\(date.month < 10 ? "0" : "")\(date.month)"
    }

    static func text(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: HTTPHeaders([("content-type", "text/plain")]), body: Array(text.utf8))
    }
}
