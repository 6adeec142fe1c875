// AttestdAppCheckProviderFactory.swift: FirebaseAppCheck's tokens from attestd instead of Firebase.
//
// NOT COMPILED by attestd's build or tests: attestd builds on Linux, which has no iOS SDK, FirebaseAppCheck or
// AppCheckCore. It is written against the public headers of FirebaseAppCheck (firebase-ios-sdk 12.x) and
// AppCheckCore (google/app-check 11.x), with the Swift names those headers declare; compile it in your app target
// (see README.md beside it).

import AppCheckCore
import DeviceCheck
import FirebaseAppCheck
import FirebaseCore
import Foundation

/// Makes FirebaseAppCheck get its tokens from attestd. Install it before `FirebaseApp.configure()`:
///
///     AppCheck.setAppCheckProviderFactory(
///         AttestdAppCheckProviderFactory(baseURL: "https://appcheck.example.com/v1"))
///     FirebaseApp.configure()
///
/// FirebaseAppCheck's own providers always call Firebase (`baseURL:nil`); AppCheckCore's providers, which they
/// wrap, take a base URL, and this factory makes those with attestd's. Requests go to
/// `{baseURL}/projects/{project id}/apps/{Google app id}:{method}`, so `baseURL` is attestd's HTTPS origin
/// followed by `/v1`.
public final class AttestdAppCheckProviderFactory: NSObject, AppCheckProviderFactory {
    /// Which attestation a provider uses.
    public enum Provider: Sendable {
        /// App Attest (iOS 14+); no provider where the device does not support it.
        case appAttest
        /// App Attest where the device supports it, else DeviceCheck through `AttestdDeviceCheckProvider`.
        case appAttestOrDeviceCheck
        /// DeviceCheck through `AttestdDeviceCheckProvider` (attestd's app needs its `deviceCheck` key).
        case deviceCheck
        /// A debug token listed in the app's `debugTokenHashes`: simulators and CI only, never in a release.
        case debug
    }

    /// attestd's base URL, with `/v1`: `https://appcheck.example.com/v1`.
    public let baseURL: String
    /// Names the keychain and user-defaults entries of the App Attest key and artifact. Keep it distinct from
    /// Firebase's (FirebaseAppCheck uses the Firebase app's name), so attestd's keys never mix with Firebase's.
    public let serviceName: String
    public let provider: Provider
    /// Whether an App Attest provider starts over with a new key when attestd refuses an assertion (see
    /// `AttestdAppAttestProvider`); at most once per `minimumStartOverInterval`.
    public let startsOverWhenAssertionsAreRefused: Bool
    public let minimumStartOverInterval: TimeInterval

    public init(baseURL: String, serviceName: String = "attestd", provider: Provider = .appAttestOrDeviceCheck,
                startsOverWhenAssertionsAreRefused: Bool = true, minimumStartOverInterval: TimeInterval = 86_400) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.serviceName = serviceName
        self.provider = provider
        self.startsOverWhenAssertionsAreRefused = startsOverWhenAssertionsAreRefused
        self.minimumStartOverInterval = minimumStartOverInterval
    }

    public func createProvider(with app: FirebaseApp) -> AppCheckProvider? {
        // The name FirebaseAppCheck uses too (FIRApp+AppCheck.m); attestd takes the project id or number.
        guard let projectID = app.options.projectID else {
            NSLog("AttestdAppCheckProviderFactory: FirebaseOptions.projectID is not set; no App Check provider.")
            return nil
        }
        let resourceName = "projects/\(projectID)/apps/\(app.options.googleAppID)"
        switch provider {
        case .debug:
            // attestd ignores the API key; AppCheckCore's debug provider requires one.
            let core = AppCheckCoreDebugProvider(
                serviceName: serviceName, resourceName: resourceName, baseURL: baseURL,
                apiKey: app.options.apiKey ?? "", requestHooks: nil)
            return AttestdDebugProvider(core)
        case .deviceCheck:
            return deviceCheckProvider(resourceName)
        case .appAttest, .appAttestOrDeviceCheck:
            if #available(iOS 14.0, macOS 11.3, macCatalyst 14.5, tvOS 15.0, watchOS 9.0, *),
               DCAppAttestService.shared.isSupported {
                return AttestdAppAttestProvider(
                    baseURL: baseURL, serviceName: serviceName, resourceName: resourceName,
                    keychainAccessGroup: app.options.appGroupID,
                    startsOver: startsOverWhenAssertionsAreRefused, minimumStartOverInterval: minimumStartOverInterval)
            }
            return provider == .appAttestOrDeviceCheck ? deviceCheckProvider(resourceName) : nil
        }
    }

    private func deviceCheckProvider(_ resourceName: String) -> AppCheckProvider? {
        #if os(watchOS)
            return nil  // AttestdDeviceCheckProvider is for iOS, macOS, Mac Catalyst and tvOS.
        #else
            if #available(iOS 11.0, macOS 10.15, macCatalyst 13.0, tvOS 11.0, *) {
                return AttestdDeviceCheckProvider(baseURL: baseURL, resourceName: resourceName)
            }
            return nil
        #endif
    }
}

/// AppCheckCore's App Attest provider pointed at attestd, with one addition: a way out for an install whose
/// assertions attestd refuses for good.
///
/// AppCheckCore forgets its key and attests a new one only when attestd answers 403 to an *attestation*, or when
/// the device's App Attest refuses the key; a 403 to an *assertion* is returned to the app every time, with
/// backoff, and the install never gets a token again. That happens when attestd cannot open the artifact (its
/// artifact key was dropped from the keyring, or the artifact is Firebase's), or the key was revoked.
/// AppCheckCore's public API has no way to reset its stored key, so this provider starts over under a new
/// service name (`attestd`, then `attestd.1`, `attestd.2`, …, remembered in `UserDefaults.standard`): fresh
/// keychain and user-defaults entries, so AppCheckCore generates and attests a new key. The old key stays in the
/// Secure Enclave, unused (App Attest keys cannot be deleted).
///
/// A refused assertion is recognised by what AppCheckCore exposes: a request hook sees that the last request sent
/// was `…:exchangeAppAttestAssertion`, and the error's failure reason, which AppCheckCore writes as
/// "… HTTP status code: 403 …". That text is not API: if AppCheckCore changes it, this provider stops starting
/// over and behaves exactly like AppCheckCore's own.
@available(iOS 14.0, macOS 11.3, macCatalyst 14.5, tvOS 15.0, watchOS 9.0, *)
public final class AttestdAppAttestProvider: NSObject, AppCheckProvider, @unchecked Sendable {
    private static let assertionMethod = "exchangeAppAttestAssertion"
    private static let refusedMarker = "HTTP status code: 403"

    private let baseURL: String
    private let serviceName: String
    private let resourceName: String
    private let keychainAccessGroup: String?
    private let startsOver: Bool
    private let minimumStartOverInterval: TimeInterval
    private let generationKey: String
    private let startedOverAtKey: String

    /// Guards everything below it: AppCheckCore calls the request hook on its own queues.
    private let lock = NSLock()
    private var core: AppCheckCoreAppAttestProvider!
    private var requestsSent = 0
    private var lastMethod = ""

    public init(baseURL: String, serviceName: String, resourceName: String, keychainAccessGroup: String?,
                startsOver: Bool = true, minimumStartOverInterval: TimeInterval = 86_400) {
        self.baseURL = baseURL
        self.serviceName = serviceName
        self.resourceName = resourceName
        self.keychainAccessGroup = keychainAccessGroup
        self.startsOver = startsOver
        self.minimumStartOverInterval = minimumStartOverInterval
        self.generationKey = "attestd.appCheck.\(serviceName).\(resourceName).generation"
        self.startedOverAtKey = "attestd.appCheck.\(serviceName).\(resourceName).startedOverAt"
        super.init()
        core = makeCore(generation: UserDefaults.standard.integer(forKey: generationKey))
    }

    public func getToken(completion handler: @escaping (AppCheckToken?, Error?) -> Void) {
        fetch(limitedUse: false, mayStartOver: startsOver, handler)
    }

    public func getLimitedUseToken(completion handler: @escaping (AppCheckToken?, Error?) -> Void) {
        fetch(limitedUse: true, mayStartOver: startsOver, handler)
    }

    private func fetch(limitedUse: Bool, mayStartOver: Bool, _ handler: @escaping (AppCheckToken?, Error?) -> Void) {
        lock.lock()
        let current: AppCheckCoreAppAttestProvider = core
        let sentBefore = requestsSent
        lock.unlock()
        let completion: (AppCheckCoreToken?, Error?) -> Void = { [self] token, error in
            if let token {
                handler(AppCheckToken(token: token.token, expirationDate: token.expirationDate), nil)
                return
            }
            let error = error ?? NSError(domain: AppCheckCoreErrorDomain, code: 0, userInfo: [
                NSLocalizedFailureReasonErrorKey: "AppCheckCore returned neither a token nor an error."])
            if mayStartOver, startedOver(after: error, by: current, sentBefore: sentBefore) {
                // Once only: the new key's attestation either works or fails in AppCheckCore's own way.
                fetch(limitedUse: limitedUse, mayStartOver: false, handler)
            } else {
                handler(nil, error)
            }
        }
        if limitedUse {
            current.getLimitedUseToken(completion: completion)
        } else {
            current.getToken(completion: completion)
        }
    }

    /// Starts over under the next service name when `error` is attestd's 403 to an assertion that `failed` just
    /// sent, and the last start-over is old enough; true when it did.
    private func startedOver(after error: Error, by failed: AppCheckCoreAppAttestProvider, sentBefore: Int) -> Bool {
        let error = error as NSError
        guard error.domain == AppCheckCoreErrorDomain,
              error.localizedFailureReason?.contains(Self.refusedMarker) == true else { return false }
        lock.lock()
        defer { lock.unlock() }
        // A request must have gone out during this call: AppCheckCore's backoff answers from memory with the
        // last error's text, and another call may already have started over.
        guard failed === core, requestsSent > sentBefore, lastMethod == Self.assertionMethod else { return false }
        let defaults = UserDefaults.standard
        let now = Date().timeIntervalSince1970
        let last = defaults.double(forKey: startedOverAtKey)
        guard last == 0 || now - last >= minimumStartOverInterval else { return false }
        let generation = defaults.integer(forKey: generationKey) + 1
        defaults.set(generation, forKey: generationKey)
        defaults.set(now, forKey: startedOverAtKey)
        NSLog("AttestdAppAttestProvider: attestd refused this install's App Attest assertion; attesting a new key.")
        core = makeCore(generation: generation)
        return true
    }

    /// AppCheckCore's provider for one generation of keys. Called with `lock` held, or from `init`.
    private func makeCore(generation: Int) -> AppCheckCoreAppAttestProvider {
        let hook: @convention(block) (NSMutableURLRequest) -> Void = { [weak self] request in
            self?.sent(request)
        }
        return AppCheckCoreAppAttestProvider(
            serviceName: generation == 0 ? serviceName : "\(serviceName).\(generation)",
            resourceName: resourceName, baseURL: baseURL,
            apiKey: nil,  // attestd does not use Google API keys
            keychainAccessGroup: keychainAccessGroup, requestHooks: [hook])
    }

    private func sent(_ request: NSMutableURLRequest) {
        // `…/apps/{app id}:{method}`: the method follows the last colon.
        let method = request.url?.absoluteString.split(separator: ":").last.map(String.init) ?? ""
        lock.lock()
        requestsSent += 1
        lastMethod = method
        lock.unlock()
    }
}

/// AppCheckCore's debug provider pointed at attestd, as a FirebaseAppCheck provider. It logs its debug token at
/// start (or takes `AppCheckDebugToken` from the environment); list its SHA-256 in the app's `debugTokenHashes`.
public final class AttestdDebugProvider: NSObject, AppCheckProvider {
    private let core: AppCheckCoreDebugProvider

    public init(_ core: AppCheckCoreDebugProvider) {
        self.core = core
    }

    public func getToken(completion handler: @escaping (AppCheckToken?, Error?) -> Void) {
        core.getToken { token, error in handler(token.map(AttestdDebugProvider.firebaseToken), error) }
    }

    public func getLimitedUseToken(completion handler: @escaping (AppCheckToken?, Error?) -> Void) {
        core.getLimitedUseToken { token, error in handler(token.map(AttestdDebugProvider.firebaseToken), error) }
    }

    private static func firebaseToken(_ token: AppCheckCoreToken) -> AppCheckToken {
        AppCheckToken(token: token.token, expirationDate: token.expirationDate)
    }
}
