import AppAttest
import AppCheckMessages
import Basics
import Batching
import GRPC
import Observability
import Storage
import Tokens
import Config

/// The attestation providers, as the failure metric labels them.
enum Provider: String, Sendable, CaseIterable {
    case appAttest = "app_attest"
    case debug
    case deviceCheck = "device_check"
    case custom
    case token = "app_check_token"
}

/// Refusals the service decides itself rather than a verifier, named once for the handlers and for the failure
/// metric's series declared at start.
enum ServiceRefusal {
    /// The challenge was already consumed: a replayed attestation or assertion.
    static let challengeReplayed = "challengeReplayed"
    /// The assertion's key was revoked by an operator.
    static let keyRevoked = "keyRevoked"
    /// The artifact opened, but the store holds no record of its key.
    static let unknownKey = "unknownKey"
    /// The debug token is not one the app lists.
    static let unknownDebugToken = "unknownDebugToken"
    /// Apple refused the DeviceCheck token.
    static let deviceTokenRejected = "deviceTokenRejected"
}

extension Provider {
    /// Every fixed reason a refusal of this provider can carry, for the failure metric's zero series. Reasons that
    /// name a part or a cause (`malformed(authData)`, `chainInvalid(expired)`) appear when first seen.
    var knownReasons: [String] {
        switch self {
        case .appAttest:
            AppAttestError.Reason.fixedReasons.map(\.name) + ChallengeError.all.map(\.reason)
                + ArtifactError.all.map(\.reason)
                + [ServiceRefusal.challengeReplayed, ServiceRefusal.keyRevoked, ServiceRefusal.unknownKey]
        case .debug: [ServiceRefusal.unknownDebugToken]
        case .deviceCheck: [ServiceRefusal.deviceTokenRejected]
        case .custom: CustomTokenError.all.map(\.reason)
        case .token: AppCheckTokenError.all.map(\.reason)
        }
    }
}

extension Provider {
    /// The failure metric's label sets known from the configuration: each app with every fixed reason of each
    /// provider it can use (App Attest and debug tokens always; DeviceCheck and custom tokens when configured), and the
    /// token checks, which refuse before any app is known (`app=""`).
    static func failureSeries(_ projects: [Configuration.Project]) -> [[String]] {
        var series: [[String]] = []
        for project in projects {
            for app in project.apps {
                // Debug for every app: a debug token sent to an app that accepts none is worth an alert.
                var providers: [Provider] = [.appAttest, .debug]
                if app.deviceCheck != nil { providers.append(.deviceCheck) }
                if !project.serviceAccounts.isEmpty { providers.append(.custom) }
                for provider in providers {
                    series += CounterFamily.combinations([app.appID], [provider.rawValue], provider.knownReasons)
                }
            }
        }
        return series + CounterFamily.combinations([""], [Provider.token.rawValue], Provider.token.knownReasons)
    }
}
