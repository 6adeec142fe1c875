import AppCheckMessages
import HTTP
public import Observability
import Synchronization
import Tokens

/// attestd assembled from its configuration: the keys, the apps, the RPC endpoints, the metrics and the HTTP
/// server, with SIGTERM/SIGINT starting a graceful shutdown.
public final class AttestdService: Sendable {
    private let server: HTTPServer
    private let health: HealthState
    private let logger: Logger
    private let shutdownGraceSeconds: Double
    private let signals = Mutex<ShutdownSignals?>(nil)

    public init(configuration: Configuration, logger: Logger) throws {
        self.logger = logger
        self.shutdownGraceSeconds = Double(configuration.limits.shutdownGraceSeconds)
        let keys = try ChallengeKeyFile.load(
            path: configuration.keys.challengeKeyPath, generateMissing: configuration.keys.generateMissing)
        let health = HealthState()
        self.health = health
        let endpoints = EndpointTable.endpoints(.init(
            apps: AppRegistry(projects: configuration.projects),
            challenges: ChallengeCodec(keys: keys, ttlSeconds: Int64(configuration.challengeTTLSeconds)),
            health: health))

        let metrics = RequestMetrics(methods: endpoints.map(\.name) + ["healthz", "metrics"])
        let registry = MetricsRegistry()
        registry.register(metrics)
        let router = ServiceRouter(
            endpoints: endpoints, maxMessageBytes: configuration.limits.maxMessageBytes, metrics: metrics,
            registry: registry, health: health, logger: logger.with("component", "router"))

        var http = HTTPServerConfiguration(
            listeners: configuration.listeners.map { listener in
                HTTPListener(host: listener.address, port: listener.port, tls: listener.tls.map {
                    TLSConfiguration(certificatePath: $0.certificatePath, privateKeyPath: $0.privateKeyPath)
                })
            },
            eventLoopCount: configuration.eventLoops)
        http.maxConcurrentStreams = UInt32(configuration.limits.maxConcurrentStreams)
        http.maxHeaderListBytes = configuration.limits.maxHeaderListBytes
        http.maxRequestBodyBytes = configuration.limits.maxMessageBytes + 5  // one gRPC frame prefix
        http.maxBufferedOutputBytes = configuration.limits.maxBufferedOutputBytes
        http.idleTimeoutSeconds = configuration.limits.idleTimeoutSeconds
        let server = try HTTPServer(configuration: http, handler: router, logger: logger.with("component", "http"))
        self.server = server
        registry.register(Gauge(name: "attestd_open_connections", help: "Open client connections.") {
            Double(server.openConnections)
        })
        registry.register(Gauge(name: "attestd_open_streams", help: "Open HTTP/2 streams and in-flight HTTP/1.1 requests.") {
            Double(server.openStreams)
        })
    }

    /// Binds every listener, starts the event loops, and starts watching for SIGTERM and SIGINT.
    public func start() throws {
        try server.start()
        for address in server.boundAddresses {
            logger.info("listening", [("address", address.host), ("port", String(address.port))])
        }
        signals.withLock { signals in
            signals = ShutdownSignals { [self] number in
                logger.info("shutting down", [("signal", number == 15 ? "SIGTERM" : "SIGINT"),
                                              ("graceSeconds", String(shutdownGraceSeconds))])
                beginGracefulShutdown()
            }
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

    /// Blocks until the server has stopped.
    public func waitUntilStopped() {
        server.waitUntilStopped()
    }
}
