public import Basics
import Foundation
import Observability

/// Apple's DeviceCheck API (`validate_device_token`, `query_two_bits`, `update_two_bits`) for one developer key.
/// Blocking: call it from a worker thread, never from an event loop. Safe to share between threads.
public final class DeviceCheckClient: Sendable {
    private let baseURL: String
    private let tokens: DeveloperTokenCache
    private let http: AppleHTTPClient
    private let clock: TimeSource

    /// - Parameters:
    ///   - baseURL: `https://api.devicecheck.apple.com`, `https://api.development.devicecheck.apple.com`, or a
    ///     stand-in; a trailing slash is ignored.
    ///   - clock: the time requests carry (Unix milliseconds) and the JWT's `iat` (its seconds).
    public init(
        baseURL: String, credentials: DeveloperCredentials, options: AppleTransportOptions = AppleTransportOptions(),
        clock: TimeSource = .system
    ) {
        var baseURL = baseURL
        while baseURL.hasSuffix("/") { baseURL.removeLast() }
        self.baseURL = baseURL
        self.clock = clock
        self.tokens = DeveloperTokenCache(credentials: credentials, clock: clock)
        self.http = AppleHTTPClient(options: options)
    }

    /// Succeeds when Apple says the device token is genuine and current.
    public func validate(deviceToken: String, deadline: ContinuousClock.Instant) throws(AppleError) {
        let response = try send("validate_device_token", deviceToken: deviceToken, extra: "", deadline: deadline)
        guard response.status == 200 else { throw Self.failure(response) }
    }

    /// The device's bits, or nil when they were never set (Apple's plain-text 200, pitfall 14).
    public func queryTwoBits(deviceToken: String, deadline: ContinuousClock.Instant) throws(AppleError) -> DeviceBits? {
        let response = try send("query_two_bits", deviceToken: deviceToken, extra: "", deadline: deadline)
        guard response.status == 200 else { throw Self.failure(response) }
        if let bits = try? JSONDecoder().decode(QueryAnswer.self, from: Data(response.body)) {
            return DeviceBits(bit0: bits.bit0, bit1: bits.bit1, lastUpdateTime: bits.last_update_time ?? "")
        }
        // "Failed to find bit state" now, "Bit State Not Found" in older answers.
        guard response.text.lowercased().contains("bit state") else {
            throw AppleError(.unexpectedResponse, "query_two_bits answered 200 with \(response.text.prefix(200))", status: 200)
        }
        return nil
    }

    /// Sets the bits that are not nil and leaves the others as they are.
    public func updateTwoBits(deviceToken: String, bit0: Bool?, bit1: Bool?, deadline: ContinuousClock.Instant) throws(AppleError) {
        var extra = ""
        if let bit0 { extra += ",\"bit0\":\(bit0)" }
        if let bit1 { extra += ",\"bit1\":\(bit1)" }
        let response = try send("update_two_bits", deviceToken: deviceToken, extra: extra, deadline: deadline)
        guard response.status == 200 else { throw Self.failure(response) }
    }

    private struct QueryAnswer: Decodable {
        var bit0: Bool
        var bit1: Bool
        var last_update_time: String?
    }

    private func send(
        _ endpoint: String, deviceToken: String, extra: String, deadline: ContinuousClock.Instant
    ) throws(AppleError) -> AppleHTTPClient.Response {
        let jwt = try tokens.token()
        return try http.post(
            url: "\(baseURL)/v1/\(endpoint)",
            headers: ["Authorization: Bearer \(jwt)", "Content-Type: application/json"],
            deadline: deadline
        ) {
            // Every attempt, retries included, gets a fresh transaction id and the current time in milliseconds.
            var body = "{\"device_token\":"
            JSONString.append(deviceToken, to: &body)
            body += ",\"transaction_id\":\"\(UUID().uuidString)\",\"timestamp\":\(clock.unixMilliseconds())\(extra)}"
            return Array(body.utf8)
        }
    }

    /// Sorts a non-200 answer the way the reference says: only 400s naming the device token are the client's.
    static func failure(_ response: AppleHTTPClient.Response) -> AppleError {
        let text = response.text
        let summary = "Apple answered \(response.status): \(text.prefix(200))"
        switch response.status {
        case 400 where text.lowercased().contains("device token"):
            return AppleError(.deviceTokenRejected, summary, status: 400)
        case 400 where text.lowercased().contains("authorization token"), 401:
            return AppleError(.authorizationRejected, summary, status: response.status)
        case 400..<500:
            return AppleError(.badRequest, summary, status: response.status)
        default:
            return AppleError(.unexpectedResponse, summary, status: response.status)
        }
    }
}
