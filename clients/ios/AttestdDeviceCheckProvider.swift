// AttestdDeviceCheckProvider.swift: App Check tokens from attestd for a DeviceCheck device token.
//
// NOT COMPILED by attestd's build or tests: attestd builds on Linux, which has no iOS SDK or FirebaseAppCheck. It
// uses only public API (DeviceCheck's DCDevice, URLSession, FirebaseAppCheck's AppCheckProvider and AppCheckToken);
// compile it in your app target (see README.md beside it).

#if !os(watchOS)

import DeviceCheck
import FirebaseAppCheck
import Foundation

/// A FirebaseAppCheck provider that exchanges a DeviceCheck device token at attestd.
///
/// FirebaseAppCheck's and AppCheckCore's DeviceCheck providers have no base URL (both always call Firebase), so
/// this one does the exchange itself, as they do: `DCDevice.current.generateToken`, then
/// `POST {baseURL}/{resourceName}:exchangeDeviceCheckToken` with `{"device_token": <base64>, "limited_use": …}`,
/// answered `{"token": "<JWT>", "ttl": "3600s"}`. attestd validates the device token with Apple, so the app's
/// entry in attestd's config needs its `deviceCheck` key. DeviceCheck proves less than App Attest (a genuine
/// device, not a genuine copy of the app): prefer App Attest where the device supports it.
///
/// Unlike AppCheckCore's providers it keeps no backoff state: FirebaseAppCheck calls it when it needs a token.
@available(iOS 11.0, macOS 10.15, macCatalyst 13.0, tvOS 11.0, *)
public final class AttestdDeviceCheckProvider: NSObject, AppCheckProvider, Sendable {
    private let endpoint: URL?
    private let session: URLSession

    /// - Parameters:
    ///   - baseURL: attestd's base URL, with `/v1`: `https://appcheck.example.com/v1`.
    ///   - resourceName: `projects/{project id or number}/apps/{Google app id}`.
    public init(baseURL: String, resourceName: String, session: URLSession = .shared) {
        self.endpoint = URL(string: "\(baseURL)/\(resourceName):exchangeDeviceCheckToken")
        self.session = session
    }

    public func getToken(completion handler: @escaping (AppCheckToken?, Error?) -> Void) {
        exchange(limitedUse: false, handler)
    }

    public func getLimitedUseToken(completion handler: @escaping (AppCheckToken?, Error?) -> Void) {
        exchange(limitedUse: true, handler)
    }

    private func exchange(limitedUse: Bool, _ completion: @escaping (AppCheckToken?, Error?) -> Void) {
        // DeviceCheck's and URLSession's completion handlers are @Sendable in recent SDKs; FirebaseAppCheck's is
        // not, and it is called exactly once, from whichever thread finishes.
        let handler = Completion(call: completion)
        guard let endpoint else {
            handler.call(nil, Self.error("The base URL and resource name do not make a URL."))
            return
        }
        let device = DCDevice.current
        guard device.isSupported else {
            handler.call(nil, Self.error("DeviceCheck is not supported on this device."))
            return
        }
        device.generateToken { deviceToken, error in
            guard let deviceToken else {
                handler.call(nil, error ?? Self.error("DeviceCheck returned no device token."))
                return
            }
            var request = URLRequest(url: endpoint)
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.cachePolicy = .reloadIgnoringLocalCacheData
            request.httpBody = try? JSONSerialization.data(withJSONObject: [
                "device_token": deviceToken.base64EncodedString(), "limited_use": limitedUse,
            ])
            let requested = Date()
            self.session.dataTask(with: request) { body, response, error in
                if let error {
                    handler.call(nil, error)
                    return
                }
                let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                guard status == 200, let body else {
                    let text = body.flatMap { String(data: $0, encoding: .utf8) } ?? ""
                    handler.call(nil, Self.error("attestd answered HTTP \(status): \(text)", status: status))
                    return
                }
                guard let token = Self.token(body, requestedAt: requested) else {
                    handler.call(nil, Self.error("attestd's answer is not an App Check token."))
                    return
                }
                handler.call(token, nil)
            }.resume()
        }
    }

    /// The token in attestd's answer, `{"token": "<JWT>", "ttl": "<seconds>s"}`, expiring `ttl` after the request.
    private static func token(_ body: Data, requestedAt: Date) -> AppCheckToken? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
              let token = object["token"] as? String, !token.isEmpty,
              let ttl = object["ttl"] as? String, ttl.hasSuffix("s"), let seconds = Double(ttl.dropLast())
        else { return nil }
        return AppCheckToken(token: token, expirationDate: requestedAt.addingTimeInterval(seconds))
    }

    /// FirebaseAppCheck's completion handler, carried into the @Sendable closures of DeviceCheck and URLSession.
    private struct Completion: @unchecked Sendable {
        let call: (AppCheckToken?, Error?) -> Void
    }

    private static func error(_ reason: String, status: Int? = nil) -> NSError {
        var userInfo: [String: Any] = [NSLocalizedFailureReasonErrorKey: reason]
        if let status { userInfo["HTTPStatusCode"] = status }
        return NSError(domain: "AttestdDeviceCheckProvider", code: status ?? 0, userInfo: userInfo)
    }
}

#endif
