public import AppAttestSimulator
public import HTTP
public import Observability

/// A local stand-in for Apple's DeviceCheck and App Attest risk-metric servers, for tests and development:
/// Apple's endpoints, status codes and body texts, developer-JWT checks, and two bits per device that persist.
public final class AppleStandIn: Sendable {
    /// What the stand-in serves and accepts.
    public struct Configuration: Sendable {
        /// The environment this instance plays (Apple has one host per environment).
        public var environment: AppleEnvironment
        /// The developer keys whose JWTs are accepted.
        public var developerKeys: [DeveloperKey]
        /// A JSON file keeping the two bits across restarts; nil keeps them in memory only.
        public var stateFilePath: String?
        /// Where to listen (TLS in tests, as Apple's hosts are HTTPS).
        public var listener: HTTPListener
        /// The CA that signed the receipts attestd will refresh (the simulator's), which signs the new ones too;
        /// nil answers every well-formed `attestationData` request 404 (no data).
        public var receiptCA: SimulatedReceiptCA?
        /// The fraud-risk metric new receipts carry.
        public var riskMetric: Int = 1
        /// How long after its creation a new receipt may be refreshed: Apple's is about a day; 0 lets tests refresh
        /// again at once.
        public var receiptNotBeforeSeconds: Int64 = 86_400

        public init(
            environment: AppleEnvironment, developerKeys: [DeveloperKey], stateFilePath: String?, listener: HTTPListener,
            receiptCA: SimulatedReceiptCA? = nil, riskMetric: Int = 1
        ) {
            self.receiptCA = receiptCA
            self.riskMetric = riskMetric
            self.environment = environment
            self.developerKeys = developerKeys
            self.stateFilePath = stateFilePath
            self.listener = listener
        }
    }

    private let server: HTTPServer
    private let handler: AppleStandInHandler
    /// Failures to answer with before serving requests normally.
    public let faults = FaultPlan()
    /// How `attestationData` answers (also `POST /sim/receipts`).
    public let receipts: RiskMetricControls

    /// Loads the state file and the listener's certificate; call ``start()`` to listen.
    public init(_ configuration: Configuration, logger: Logger = Logger(label: "apple-stand-in")) throws {
        let store = try TwoBitsStore(path: configuration.stateFilePath)
        let receipts = RiskMetricControls(
            riskMetric: configuration.riskMetric, notBeforeSeconds: configuration.receiptNotBeforeSeconds)
        self.receipts = receipts
        handler = AppleStandInHandler(
            environment: configuration.environment, tokenCheck: DeveloperTokenCheck(keys: configuration.developerKeys),
            store: store, faults: faults,
            riskMetric: configuration.receiptCA.map {
                RiskMetricService(receiptCA: $0, environment: configuration.environment, controls: receipts)
            },
            logger: logger)
        server = try HTTPServer(
            configuration: HTTPServerConfiguration(listeners: [configuration.listener], eventLoopCount: 1),
            handler: handler, logger: logger)
    }

    /// Binds the listener and starts serving.
    public func start() throws { try server.start() }

    /// The bound port (useful when the listener asked for port 0).
    public var port: Int { server.boundAddresses.first?.port ?? 0 }

    /// Requests that reached one of Apple's endpoints, including those answered with a scripted fault.
    public var requestCount: Int { handler.requestCount.load(ordering: .relaxed) }

    /// Client connections open right now (a client that pools connections keeps this at one).
    public var openConnections: Int { server.openConnections }

    /// Stops listening and closes connections.
    public func stop() {
        server.beginGracefulShutdown(deadlineSeconds: 1)
        server.waitUntilStopped()
    }
}
