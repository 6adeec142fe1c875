public import Basics
import Foundation

/// App Attest's fraud-risk metric endpoint (`POST /v1/attestationData`) for one developer key: posts a receipt,
/// gets back a newer one carrying the metric. Authenticated by the bare developer JWT (no `Bearer`, pitfall 16).
/// Blocking: call it from a worker thread. Safe to share between threads.
public final class RiskMetricClient: Sendable {
    /// `https://data.appattest.apple.com` (production).
    public static let productionURL = "https://data.appattest.apple.com"
    /// `https://data-development.appattest.apple.com` (development: its metric is not meaningful).
    public static let developmentURL = "https://data-development.appattest.apple.com"

    private let endpoint: String
    private let tokens: DeveloperTokenCache
    private let http: AppleHTTPClient

    /// - Parameters:
    ///   - baseURL: one of the two hosts above, or a stand-in; `/v1/attestationData` is appended.
    ///   - clock: the time of the JWT's `iat`.
    public init(
        baseURL: String, credentials: DeveloperCredentials, options: AppleTransportOptions = AppleTransportOptions(),
        clock: TimeSource = .system
    ) {
        var baseURL = baseURL
        while baseURL.hasSuffix("/") { baseURL.removeLast() }
        endpoint = baseURL + "/v1/attestationData"
        tokens = DeveloperTokenCache(credentials: credentials, clock: clock)
        http = AppleHTTPClient(options: options)
    }

    /// Posts `receipt` (the latest one stored for the key) and sorts Apple's answer. 400 (`Bad Payload`,
    /// `Incorrect Environment`) is `.badRequest`, 401 `.authorizationRejected`; 429 and 5xx are retried until the
    /// attempts or the deadline run out (`.unavailable`).
    public func refresh(receipt: [UInt8], deadline: ContinuousClock.Instant) throws(AppleError) -> RiskMetricAnswer {
        let jwt = try tokens.token()
        let body = Array(Base64.standard.encode(receipt).utf8)
        let response = try http.post(
            url: endpoint, headers: ["Authorization: \(jwt)", "Content-Type: base64"], deadline: deadline
        ) { body }
        switch response.status {
        case 200:
            let text = response.text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard let receipt = Base64.standard.decode(text), !receipt.isEmpty else {
                throw AppleError(.unexpectedResponse, "attestationData answered 200 without a base64 receipt", status: 200)
            }
            return .newReceipt(receipt)
        case 304: return .notModified
        case 404: return .noData
        case 401: throw AppleError(.authorizationRejected, "Apple answered 401: \(response.text.prefix(200))", status: 401)
        case 400..<500: throw AppleError(.badRequest, "Apple answered \(response.status): \(response.text.prefix(200))", status: response.status)
        default:
            throw AppleError(.unexpectedResponse, "Apple answered \(response.status): \(response.text.prefix(200))", status: response.status)
        }
    }
}
