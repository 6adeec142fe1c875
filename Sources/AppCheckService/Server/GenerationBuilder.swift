import AppAttest
import AppCheckMessages
import Config
import Observability
import Storage
import Tokens
import VerifierPool

/// Builds a ``ServingGeneration`` from a configuration: what a reload replaces (the apps, the keys the file names,
/// the custom-token verifiers, the callers, the DeviceCheck clients, the gateway, and the endpoints over them) over
/// what every generation shares (the verifier threads, the state store, the attestation verifier with its trust
/// roots, the Apple-call threads, health and the metric families).
struct GenerationBuilder: Sendable {
    let health: HealthState
    let pool: VerifierPool
    let store: any StateStore
    let attestations: AttestationVerifier
    let failures: CounterFamily
    let storeErrors: CounterFamily
    let appleCalls: AppleCallThreads
    let gatewayMetrics: GatewayMetrics
    let logger: Logger

    /// The generation serving `configuration`, numbered `number`, signing with `keys` (read from the files
    /// `configuration.keys` names). Throws, naming the file or the app, when a file it names cannot be used.
    func build(_ configuration: Configuration, number: Int, keys: KeyMaterial) throws -> ServingGeneration {
        let apps = AppRegistry(projects: configuration.projects)
        // Declared again on every build: apps a reload adds get their zero series too.
        failures.declare(Provider.failureSeries(configuration.projects))
        let exchange = ExchangeContext(
            apps: apps,
            challenges: ChallengeCodec(keys: keys.challengeKeys, ttlSeconds: Int64(configuration.challengeTTLSeconds)),
            artifacts: keys.artifacts,
            issuer: AppCheckTokenIssuer(keys: keys.signingKeys, issuerPrefix: configuration.tokens.issuerPrefix),
            tokenVerifier: AppCheckTokenVerifier(keys: keys.signingKeys, issuerPrefix: configuration.tokens.issuerPrefix),
            attestations: attestations,
            assertions: AssertionVerifier(),
            store: store,
            pool: pool,
            failures: failures,
            clock: .system,
            storeErrors: storeErrors)
        let gateway = GatewayAuthorizer.project(configuration.gateway, projects: configuration.projects).map { project in
            GatewayAuthorizer(configuration: configuration.gateway, project: project, apps: apps,
                              verifier: exchange.tokenVerifier, store: store, storeErrors: storeErrors, pool: pool,
                              logger: logger.with("component", "gateway"), metrics: gatewayMetrics)
        }
        if gateway == nil { logger.warning("gateway not served: several projects and no gateway.project") }
        let endpoints = EndpointTable.endpoints(.init(
            exchange: exchange, health: health, signingKeys: keys.signingKeys,
            customTokenVerifiers: try CustomTokenVerifiers.load(configuration.projects),
            callers: CallerCredentials(callers: configuration.callers),
            deviceCheck: try DeviceCheckClients(projects: configuration.projects, apple: configuration.apple, threads: appleCalls),
            gateway: gateway))
        return ServingGeneration(
            number: number, endpoints: endpoints, listenerServices: configuration.listeners.map(\.services),
            gateway: gateway, knownApps: Set(configuration.projects.flatMap { $0.apps.map(\.appID) }))
    }

    /// The metric names of every endpoint a generation may serve, the gateway's included whether or not the
    /// configuration read at start serves it (a reload may add it).
    static var endpointNames: [String] {
        [EnvoyCheckHandler.metricsName] + AppCheckRPC.allCases.map(\.method.path.method)
    }
}
