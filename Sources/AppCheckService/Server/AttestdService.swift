import AppAttest
import AppCheckMessages
import Basics
public import Config
import GRPC
import HTTP
public import Observability
import Storage
import Synchronization
import TLS
import Tokens
import VerifierPool

/// attestd assembled from its configuration: the keys, the apps, the verifiers, the state store, the RPC
/// endpoints, the metrics and the HTTP server, with SIGTERM/SIGINT starting a graceful shutdown.
public final class AttestdService: Sendable {
    private let server: HTTPServer
    private let pool: VerifierPool
    private let deviceCheck: DeviceCheckClients
    private let receiptRefresher: ReceiptRefresher?
    private let health: HealthState
    private let logger: Logger
    private let shutdownGraceSeconds: Double
    private let listeners: [Configuration.Listener]
    /// How the TLS listeners' session tickets are keyed, for the start log.
    private let sessionTicketKeying: String
    private let signals = Mutex<ShutdownSignals?>(nil)

    /// - Parameter extraTrustRootPaths: App Attest roots to trust beside Apple's (`--extra-trust-root`), added
    ///   to the configuration's `trust.extraAppAttestRoots`.
    public init(configuration: Configuration, extraTrustRootPaths: [String] = [], logger: Logger) throws {
        self.logger = logger
        self.shutdownGraceSeconds = Double(configuration.limits.shutdownGraceSeconds)
        self.listeners = configuration.listeners
        Self.warnAboutExposure(configuration, logger: logger)
        let startedAt = TimeSource.system.unixSeconds()
        let keys = try KeyMaterial.load(configuration, now: startedAt, logger: logger)
        keys.signingKeys.log(at: startedAt, logger: logger)
        if configuration.tokens.algorithm == .es256 {
            // Chosen on purpose (tokens.algorithm), never by a P-256 key in the list; still worth a loud line, since
            // the Admin SDKs reject these tokens and a backend verifying with one would refuse every request.
            logger.warning("tokens.algorithm is ES256: the Firebase Admin SDKs for Python, Node.js and Go accept only RS256 App Check tokens and refuse every token this node signs", [
                ("signingKid", keys.signingKeys.signer(at: startedAt)?.kid ?? "none"),
            ])
        }
        if let newest = keys.sessionTicketKeys.last {
            sessionTicketKeying = "keys.sessionTicketKey: \(keys.sessionTicketKeys.count) key(s), id \(newest.id) issues"
        } else {
            sessionTicketKeying = "a random key made at start (no keys.sessionTicketKey): tickets resume on this node only"
        }
        let health = HealthState()
        self.health = health
        let pool = VerifierPool(threads: configuration.verifier.effectiveThreads(),
                                capacity: configuration.verifier.queueCapacity)
        self.pool = pool
        let failures = CounterFamily(
            name: "attestd_verification_failures_total",
            help: "Refused exchanges, by app, provider and the precise reason.",
            labelNames: ["app", "provider", "reason"])
        failures.declare(Provider.failureSeries(configuration.projects))
        let apps = AppRegistry(projects: configuration.projects)
        let receiptRoots = try TrustAnchors.receipts(extraPaths: configuration.trust.extraReceiptRootPaths, logger: logger)
        let attestRoots = try TrustAnchors.appAttest(
            extraPaths: configuration.trust.extraAppAttestRootPaths + extraTrustRootPaths, logger: logger)
        let exchange = ExchangeContext(
            apps: apps,
            challenges: ChallengeCodec(keys: keys.challengeKeys, ttlSeconds: Int64(configuration.challengeTTLSeconds)),
            artifacts: keys.artifacts,
            issuer: AppCheckTokenIssuer(keys: keys.signingKeys, issuerPrefix: configuration.tokens.issuerPrefix),
            tokenVerifier: AppCheckTokenVerifier(keys: keys.signingKeys, issuerPrefix: configuration.tokens.issuerPrefix),
            attestations: AttestationVerifier(
                trustAnchorsDER: attestRoots, receiptVerifier: ReceiptVerifier(trustAnchorsDER: receiptRoots)),
            assertions: AssertionVerifier(),
            store: try StateStores.open(configuration.store, clockSkewSeconds: configuration.storeClockSkewSeconds, logger: logger),
            pool: pool,
            failures: failures,
            clock: .system)
        let gateway = GatewayAuthorizer.project(configuration.gateway, projects: configuration.projects).map { project in
            GatewayAuthorizer(configuration: configuration.gateway, project: project, apps: apps,
                              verifier: exchange.tokenVerifier, store: exchange.store,
                              storeErrors: exchange.storeErrors, pool: pool,
                              logger: logger.with("component", "gateway"))
        }
        if gateway == nil { logger.warning("gateway not served: several projects and no gateway.project") }
        let deviceCheck = try DeviceCheckClients(projects: configuration.projects, apple: configuration.apple)
        self.deviceCheck = deviceCheck
        let receiptRefresher = try ReceiptRefresher.make(
            configuration: configuration, store: exchange.store, receiptRoots: receiptRoots, logger: logger,
            storeErrors: exchange.storeErrors)
        self.receiptRefresher = receiptRefresher
        let endpoints = EndpointTable.endpoints(.init(
            exchange: exchange, health: health, signingKeys: keys.signingKeys,
            customTokenVerifiers: try CustomTokenVerifiers.load(configuration.projects),
            callers: CallerCredentials(callers: configuration.callers),
            deviceCheck: deviceCheck, gateway: gateway))

        let metrics = RequestMetrics(
            methods: endpoints.map(\.name) + ["healthz", "metrics", ServiceRouter.authRequestMethod],
            knownCodes: [GRPCStatus.Code.ok.name])
        let registry = MetricsRegistry()
        registry.register(metrics)
        registry.register(failures)
        registry.register(exchange.storeErrors)
        if let receiptRefresher {
            registry.register(receiptRefresher.refreshes)
            registry.register(receiptRefresher.riskMetrics)
        }
        registry.register(deviceCheck.requests)
        if let gateway {
            registry.register(gateway.metrics.decisions)
            registry.register(gateway.cache)
        }
        registry.register(ScrapedMetric(.gauge, name: "attestd_verifier_queue_depth", help: "Requests waiting for a verifier thread.") {
            Double(pool.queuedCount)
        })
        let admission = AdmissionControl(
            configuration: configuration.admission,
            knownApps: Set(configuration.projects.flatMap { $0.apps.map(\.appID) }),
            queueCapacity: pool.capacity, queueDepth: { pool.queuedCount })
        admission.declareSeries(methods: endpoints.map(\.name))
        registry.register(admission.rateLimited)
        let router = ServiceRouter(
            endpoints: endpoints, maxMessageBytes: configuration.limits.maxMessageBytes, metrics: metrics,
            registry: registry, health: health, logger: logger.with("component", "router"), gateway: gateway,
            admission: admission, defaultDeadlineSeconds: configuration.limits.defaultDeadlineSeconds,
            listenerServices: configuration.listeners.map(\.services))

        var http = HTTPServerConfiguration(
            listeners: configuration.listeners.map { listener in
                HTTPListener(host: listener.address, port: listener.port, tls: listener.tls.map {
                    TLSConfiguration(certificatePath: $0.certificatePath, privateKeyPath: $0.privateKeyPath,
                                     clientCertificateAuthoritiesPath: $0.clientCAFilePath,
                                     sessionTicketKeys: keys.sessionTicketKeys)
                })
            },
            eventLoopCount: configuration.eventLoops)
        http.maxConcurrentStreams = UInt32(configuration.limits.maxConcurrentStreams)
        http.maxHeaderListBytes = configuration.limits.maxHeaderListBytes
        http.maxRequestBodyBytes = configuration.limits.maxMessageBytes + 5  // one gRPC frame prefix
        http.maxBufferedOutputBytes = configuration.limits.maxBufferedOutputBytes
        http.idleTimeoutSeconds = configuration.limits.idleTimeoutSeconds
        http.apply(configuration.admission)
        let server = try HTTPServer(configuration: http, handler: router, logger: logger.with("component", "http"))
        self.server = server
        registry.register(ShedMetrics(admission: admission, pool: pool, server: server))
        registry.register(RequestStageMetrics([("verifier_queue", pool.queueWait), ("answer_return", server.answerReturnTimes)]))
        registry.register(ScrapedMetric(.gauge, name: "attestd_open_connections", help: "Open client connections.") {
            Double(server.openConnections)
        })
        registry.register(ScrapedMetric(.gauge, name: "attestd_open_streams", help: "Open HTTP/2 streams and in-flight HTTP/1.1 requests.") {
            Double(server.openStreams)
        })
        registry.register(ScrapedMetric(
            .counter,
            name: "attestd_idle_memory_released_bytes_total",
            help: "Memory HTTP/2 connections quiet for a second gave back: frame buffer and stream table pages, output buffers."
        ) { Double(server.idleMemoryReleasedBytes) })
        registry.register(TLSMetrics(server: server))
    }

    /// Binds every listener, starts the event loops, and starts watching for SIGTERM and SIGINT.
    public func start() throws {
        // Signals are watched before the first listener binds: a SIGTERM that arrives as soon as the port accepts
        // must already be a graceful shutdown, not the default action that kills the process.
        signals.withLock { signals in
            signals = ShutdownSignals { [self] number in
                logger.info("shutting down", [("signal", number == 15 ? "SIGTERM" : "SIGINT"),
                                              ("graceSeconds", String(shutdownGraceSeconds))])
                beginGracefulShutdown()
            }
        }
        try server.start()
        receiptRefresher?.start()
        // What OpenSSL will find when it hands a connection's records to the kernel, tried once.
        let kernelTLS = listeners.contains { $0.tls != nil } ? KernelTLS.probe() : nil
        for (address, listener) in zip(server.boundAddresses, listeners) {
            var fields = [
                ("address", address.host), ("port", String(address.port)),
                ("services", listener.services.names.joined(separator: ",")),
                ("clientCertificates", listener.tls?.clientCAFilePath == nil ? "no" : "yes"),
                ("tls", listener.tls == nil ? "no" : "yes"),
            ]
            if listener.tls != nil, let kernelTLS {
                fields += [
                    ("kernelTLS", kernelTLS.offered
                        ? "requested; the kernel offers it (attestd_tls_ktls_connections_total counts the connections it takes)"
                        : "requested; the kernel does not offer it, so OpenSSL protects every record"),
                    ("kernelTLSProbe", kernelTLS.detail),
                    ("sessionTickets", sessionTicketKeying),
                ]
            }
            logger.info("listening", fields)
        }
    }

    /// Where the listeners are bound (the real ports, when the configuration asked for port 0).
    public var boundAddresses: [(host: String, port: Int)] { server.boundAddresses }

    /// Health turns NOT_SERVING, listeners close, connections get GOAWAY, in-flight requests finish, and whatever
    /// is left is closed when the grace period ends.
    public func beginGracefulShutdown() {
        health.stopServing()
        server.beginGracefulShutdown(deadlineSeconds: shutdownGraceSeconds)
    }

    /// Blocks until the server has stopped, then lets the verifier threads finish.
    public func waitUntilStopped() {
        server.waitUntilStopped()
        receiptRefresher?.stop()
        pool.shutdown()
        deviceCheck.shutdown()
    }
}
