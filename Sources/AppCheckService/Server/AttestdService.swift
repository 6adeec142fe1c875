import AppAttest
import AppCheckMessages
import Basics
public import Config
import Foundation
import GRPC
import HTTP
public import Observability
import Storage
import Synchronization
import TLS
import Tokens
import VerifierPool

/// attestd assembled from its configuration: the keys, the apps, the verifiers, the state store, the RPC
/// endpoints, the metrics and the HTTP server, with SIGTERM/SIGINT starting a graceful shutdown and SIGHUP
/// reloading the configuration file (``ConfigurationReloader``).
public final class AttestdService: Sendable {
    private let server: HTTPServer
    private let pool: VerifierPool
    private let appleCalls: AppleCallThreads
    private let router: ServiceRouter
    /// Nil when the service was not given the file its configuration came from: SIGHUP then reloads nothing.
    private let reloader: ConfigurationReloader?
    private let receiptRefresher: ReceiptRefresher?
    private let health: HealthState
    private let logger: Logger
    private let shutdownGraceSeconds: Double
    private let listeners: [Configuration.Listener]
    /// How the TLS listeners' session tickets are keyed, for the start log.
    private let sessionTicketKeying: String
    private let signals = Mutex<ProcessSignals?>(nil)

    /// - Parameters:
    ///   - configurationPath: the file `configuration` was read from, read again on SIGHUP; nil: no reloads.
    ///   - extraTrustRootPaths: App Attest roots to trust beside Apple's (`--extra-trust-root`), added to the
    ///     configuration's `trust.extraAppAttestRoots`.
    public init(configuration: Configuration, configurationPath: String? = nil, extraTrustRootPaths: [String] = [],
                logger: Logger) throws {
        self.logger = logger
        self.shutdownGraceSeconds = Double(configuration.limits.shutdownGraceSeconds)
        self.listeners = configuration.listeners
        Self.warnAboutExposure(configuration, logger: logger)
        let startedAt = TimeSource.system.unixSeconds()
        let keys = try KeyMaterial.load(configuration, now: startedAt, logger: logger)
        keys.signingKeys.log(at: startedAt, logger: logger)
        Self.warnAboutTokenAlgorithm(
            configuration.tokens.algorithm, signingKid: keys.signingKeys.signer(at: startedAt)?.kid ?? "none", logger: logger)
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
        let storeErrors = StoreErrorMetric.family()
        let receiptRoots = try TrustAnchors.receipts(extraPaths: configuration.trust.extraReceiptRootPaths, logger: logger)
        let attestRoots = try TrustAnchors.appAttest(
            extraPaths: configuration.trust.extraAppAttestRootPaths + extraTrustRootPaths, logger: logger)
        let store = try StateStores.open(configuration.store, clockSkewSeconds: configuration.storeClockSkewSeconds, logger: logger)
        let appleCalls = AppleCallThreads(maxQueuedCalls: configuration.apple.maxQueuedCalls)
        self.appleCalls = appleCalls
        let gatewayMetrics = GatewayMetrics()
        let gatewayCache = GatewayCacheMetric()
        let builder = GenerationBuilder(
            health: health, pool: pool, store: store,
            attestations: AttestationVerifier(
                trustAnchorsDER: attestRoots, receiptVerifier: ReceiptVerifier(trustAnchorsDER: receiptRoots)),
            failures: failures, storeErrors: storeErrors, appleCalls: appleCalls, gatewayMetrics: gatewayMetrics,
            logger: logger)
        let generation = try builder.build(configuration, number: 1, keys: keys)
        gatewayCache.use(generation.gateway?.cache)
        let receiptRefresher = try ReceiptRefresher.make(
            configuration: configuration, store: store, receiptRoots: receiptRoots, logger: logger, storeErrors: storeErrors)
        self.receiptRefresher = receiptRefresher
        let reloadMetrics = ReloadMetrics(generation: 1, loadedAt: Date().timeIntervalSince1970)

        let metrics = RequestMetrics(
            methods: GenerationBuilder.endpointNames + ["healthz", "metrics", ServiceRouter.authRequestMethod],
            knownCodes: [GRPCStatus.Code.ok.name])
        let registry = MetricsRegistry()
        registry.register(metrics)
        registry.register(failures)
        registry.register(storeErrors)
        if let receiptRefresher {
            registry.register(receiptRefresher.refreshes)
            registry.register(receiptRefresher.riskMetrics)
        }
        registry.register(appleCalls.requests)
        // Registered whether or not the gateway is served now: a reload may start serving it.
        registry.register(gatewayMetrics.decisions)
        registry.register(gatewayCache)
        registry.register(reloadMetrics)
        registry.register(ScrapedMetric(.gauge, name: "attestd_verifier_queue_depth", help: "Requests waiting for a verifier thread.") {
            Double(pool.queuedCount)
        })
        let admission = AdmissionControl(
            configuration: configuration.admission,
            knownApps: Set(configuration.projects.flatMap { $0.apps.map(\.appID) }),
            queueCapacity: pool.capacity, queueDepth: { pool.queuedCount })
        admission.declareSeries(methods: GenerationBuilder.endpointNames)
        registry.register(admission.rateLimited)
        let router = ServiceRouter(
            generation: generation, maxMessageBytes: configuration.limits.maxMessageBytes, metrics: metrics,
            registry: registry, health: health, logger: logger.with("component", "router"),
            admission: admission, defaultDeadlineSeconds: configuration.limits.defaultDeadlineSeconds)
        self.router = router
        reloader = configurationPath.map { path in
            ConfigurationReloader(
                path: path, running: configuration, builder: builder, router: router, gatewayCache: gatewayCache,
                metrics: reloadMetrics, refresherRunning: receiptRefresher != nil, logger: logger)
        }

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
        // The registry's readers hold the server weakly: the server's router holds the registry.
        registry.register(ScrapedMetric(.gauge, name: "attestd_open_connections", help: "Open client connections.") { [weak server] in
            Double(server?.openConnections ?? 0)
        })
        registry.register(ScrapedMetric(.gauge, name: "attestd_open_streams", help: "Open HTTP/2 streams and in-flight HTTP/1.1 requests.") { [weak server] in
            Double(server?.openStreams ?? 0)
        })
        registry.register(ScrapedMetric(
            .counter,
            name: "attestd_idle_memory_released_bytes_total",
            help: "Memory HTTP/2 connections quiet for a second gave back: frame buffer and stream table pages, output buffers."
        ) { [weak server] in Double(server?.idleMemoryReleasedBytes ?? 0) })
        registry.register(TLSMetrics(server: server))
    }

    /// Binds every listener, starts the event loops, and starts watching for SIGTERM, SIGINT and SIGHUP.
    public func start() throws {
        reloader?.start()
        // Signals are watched before the first listener binds: a SIGTERM that arrives as soon as the port accepts
        // must already be a graceful shutdown, not the default action that kills the process.
        signals.withLock { signals in
            signals = ProcessSignals { [self] number in
                if number == SIGHUP {
                    guard let reloader else {
                        logger.warning("SIGHUP ignored: no configuration file to reload")
                        return
                    }
                    logger.info("reloading the configuration", [("signal", "SIGHUP")])
                    reloader.requestReload()
                    return
                }
                logger.info("shutting down", [("signal", number == SIGTERM ? "SIGTERM" : "SIGINT"),
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
        appleCalls.shutdown()
    }

    /// Reads the configuration file again and applies it, as SIGHUP does, on the calling thread; nil when the
    /// service was not given its file.
    func reloadConfiguration() -> ConfigurationReloader.Outcome? {
        reloader?.reload()
    }

    /// The generation new requests are served by.
    var servingGeneration: ServingGeneration { router.generation }

    /// The configuration the serving generation was built from (restart-only sections as at start); nil when the
    /// service was not given its file.
    var runningConfiguration: Configuration? { reloader?.configuration }

    /// What `GET /metrics` answers now.
    func metricsText() -> String { router.registry.render() }
}
