import Config
import Crypto
import Observability

extension AttestdService {
    /// Warns at start about a configuration that exposes more than it likely means to: a listener serving both
    /// roles on an address other than loopback (its /metrics and gateway endpoints need no credential), and no
    /// callers at all (every backend RPC will be refused).
    static func warnAboutExposure(_ configuration: Configuration, logger: Logger) {
        for listener in configuration.listeners where listener.services.isSuperset(of: .internalRole)
            && listener.services.contains(.exchange) && !isLoopback(listener.address) {
            logger.warning("listener serves devices and backends on one port", [
                ("address", listener.address), ("port", String(listener.port)),
                ("fix", "give it \"role\": \"public\" and add an \"internal\" listener for /metrics, the gateway and backends"),
            ])
        }
        if configuration.callers.isEmpty {
            logger.warning("no callers configured: VerifyAppCheckToken, DeviceStateService and KeyService refuse every call")
        }
    }

    /// Warns when App Check tokens are signed with ES256: chosen on purpose (`tokens.algorithm`), never by a P-256
    /// key in the list; still worth a loud line, since the Admin SDKs reject these tokens and a backend verifying
    /// with one would refuse every request.
    static func warnAboutTokenAlgorithm(_ algorithm: SigningAlgorithm, signingKid: String, logger: Logger) {
        guard algorithm == .es256 else { return }
        logger.warning("tokens.algorithm is ES256: the Firebase Admin SDKs for Python, Node.js and Go accept only RS256 App Check tokens and refuse every token this node signs", [
            ("signingKid", signingKid),
        ])
    }

    private static func isLoopback(_ address: String) -> Bool {
        address == "localhost" || address == "::1" || address.hasPrefix("127.")
    }
}
