public import Crypto
import HTTP
public import Observability

/// attestd's whole configuration: one JSON file, validated at start (see `config/dev.json`).
/// Relative paths in it resolve against the directory of the file.
public struct Configuration: Sendable {
    public var listeners: [Listener]
    /// Event-loop threads; 0 means one per core.
    public var eventLoops: Int
    public var logLevel: LogLevel
    public var limits: Limits
    public var keys: Keys
    public var challengeTTLSeconds: Int
    public var tokens: Tokens
    public var verifier: Verifier
    public var trust: Trust
    public var admin: Admin
    /// The backends and operators that may call the RPCs with effects (`Configuration+Callers.swift`).
    public var callers: [Caller] = []
    /// The background receipt refresher (`Configuration+Receipts.swift`).
    public var receipts: Receipts = Receipts()
    public var store: Store
    /// `store.clockSkewSeconds`: how long past its expiry a consumed challenge or token is kept, so that nodes whose
    /// clocks disagree by up to this much still find it consumed.
    public var storeClockSkewSeconds: Int = 60
    public var projects: [Project]
    /// Apple's DeviceCheck and risk-metric services: where they are and which CAs to trust.
    public var apple: AppleServices = AppleServices()
    /// The gateway checks (Envoy ext_authz, nginx auth_request) and their route policies.
    public var gateway: Gateway = Gateway()
    /// Per-client limits and load shedding (see `Configuration+Admission.swift`).
    public var admission: Admission = Admission()

    /// `apple`: `{"deviceCheckURL": …, "riskMetricURL": …, "caBundle": …}`, every member optional.
    public struct AppleServices: Sendable {
        /// One DeviceCheck base URL for every app (a stand-in); nil picks Apple's production or development host
        /// by each app's environment.
        public var deviceCheckURL: String?
        /// Likewise for App Attest's risk-metric host (`/v1/attestationData` is appended), for the receipt refresher.
        public var riskMetricURL: String?
        /// A PEM bundle of CAs to trust for Apple's hosts instead of the system's (the stand-in's, in tests).
        public var caBundlePath: String?
        /// DeviceCheck calls that may wait for one of the Apple-call threads (`apple.maxQueuedCalls`); beyond it a
        /// call is answered UNAVAILABLE at once. Each waits at most until its caller's deadline.
        public var maxQueuedCalls: Int = 256

        public init(deviceCheckURL: String? = nil, riskMetricURL: String? = nil, caBundlePath: String? = nil) {
            self.deviceCheckURL = deviceCheckURL
            self.riskMetricURL = riskMetricURL
            self.caBundlePath = caBundlePath
        }
    }

    /// An app's developer key for Apple's DeviceCheck API: `{"keyId": "ABC123DEFG", "privateKey": "AuthKey.p8"}`.
    public struct DeviceCheckKey: Sendable {
        /// The 10-character Key ID of a `.p8` key with the DeviceCheck capability.
        public var keyID: String
        /// The `.p8` file (PKCS#8 PEM, P-256).
        public var privateKeyPath: String

        public init(keyID: String, privateKeyPath: String) {
            self.keyID = keyID
            self.privateKeyPath = privateKeyPath
        }
    }

    /// Where the shared state lives (consumed challenges and tokens, key counters, the key registry).
    public enum Store: Sendable {
        /// This process only: a restart forgets everything (tests, trials). Only when named.
        case memory
        /// An embedded SQLite file (WAL): the default for one node, `attestd-state.sqlite` beside the configuration
        /// file when `store` is absent; several processes on one host may share it.
        case sqlite(path: String, survivesPowerLoss: Bool)
        /// A Redis server shared by every node of a cluster.
        case redis(Redis)
        /// A Redis Cluster shared by every node, when one Redis primary is not enough.
        case redisCluster(RedisCluster)
    }

    public struct Redis: Sendable {
        public var host: String
        public var port: Int
        public var username: String?
        public var password: String?
        public var database: Int
        public var keyPrefix: String
        public var poolSize: Int
        public var connectTimeoutMilliseconds: Int
        public var commandTimeoutMilliseconds: Int
        /// TLS to Redis; nil speaks plain TCP.
        public var tls: RedisTLS?
        /// When set, the master is found through Redis Sentinel and `host` and `port` are not used.
        public var sentinel: RedisSentinel? = nil
    }

    /// TLS to Redis: the server's certificate is always verified, and must name `serverName`.
    public struct RedisTLS: Sendable {
        /// PEM file of the CAs that may sign the server's certificate; nil uses the system's trust store.
        public var caFilePath: String?
        /// The DNS name or IP address the server's certificate must carry; nil uses the host.
        public var serverName: String?
        /// Client certificate chain and key (PEM), for a server that requires mutual TLS; both or neither.
        public var certificatePath: String?
        public var privateKeyPath: String?
    }

    /// `admin.tokenHashes`: the older spelling of operator callers (each hash is one operator, named `admin`).
    public struct Admin: Sendable {
        public var tokenHashes: [[UInt8]]
    }

    public struct Tokens: Sendable {
        /// `iss` is this prefix followed by the project number; Firebase's Admin SDKs require Firebase's prefix.
        public var issuerPrefix: String
        /// `tokens.algorithm`: what signs App Check tokens, `RS256` (the default: the only one the Firebase Admin
        /// SDKs accept) or `ES256`. The newest listed key of this algorithm signs; other keys are only published.
        public var algorithm: SigningAlgorithm = .rs256
    }

    public struct Verifier: Sendable {
        /// Worker threads for signatures and state; 0 means one per core (`effectiveThreads`).
        public var threads: Int
        /// Requests that may wait for a worker; beyond it they are answered UNAVAILABLE at once.
        public var queueCapacity: Int
    }

    /// Roots trusted beside Apple's pinned ones. Only for development and tests (the simulator's CA): attestd logs
    /// a warning at start for each one, so a production node can never trust a test root silently.
    public struct Trust: Sendable {
        public var extraAppAttestRootPaths: [String]
        public var extraReceiptRootPaths: [String]
    }

    public struct Listener: Sendable {
        public var address: String
        public var port: Int
        public var tls: TLS?
        /// What this listener serves: `role` `public` or `internal`, or an explicit `services` list; everything
        /// when it names neither.
        public var services: ListenerServices = .all
    }

    public struct TLS: Sendable {
        public var certificatePath: String
        public var privateKeyPath: String
        /// PEM bundle of the CAs whose client certificates identify callers on this listener (`clientCAFile`).
        public var clientCAFilePath: String?
    }

    public struct Limits: Sendable {
        public var maxConcurrentStreams: Int
        public var maxHeaderListBytes: Int
        public var maxMessageBytes: Int
        public var maxBufferedOutputBytes: Int
        public var idleTimeoutSeconds: Int
        public var shutdownGraceSeconds: Int
        /// The deadline of a request that names none (REST, and gRPC calls without `grpc-timeout`), counted from
        /// its arrival: work still waiting then is dropped, and calls to Apple get what is left of it.
        public var defaultDeadlineSeconds: Int = 15
    }

    public struct Keys: Sendable {
        /// The file holding the challenge MAC keys (see `ChallengeKeyFile`).
        public var challengeKeyPath: String
        /// The file of artifact sealing keys, `{"keys":[{"version":1,"key":"<base64 32 bytes>"}]}`.
        public var artifactKeyPath: String
        /// PEM private keys that sign App Check tokens (RSA-2048+ for RS256, P-256 for ES256), in the order
        /// configured, each untimed or with the times it is published and starts signing (see `TokenSigningKey`).
        public var tokenSigning: [TokenSigningKey]
        /// The file of TLS session ticket keys (see `SessionTicketKeyFile`), shared by the cluster's nodes; nil: each
        /// node makes a random one at start, and its tickets resume on that node only.
        public var sessionTicketKeyPath: String? = nil
        /// Create missing key files with fresh random keys: for development only.
        public var generateMissing: Bool
    }

    public struct Project: Sendable {
        public var number: String
        public var id: String
        public var apps: [App]
        /// Service accounts whose RS256 custom tokens `ExchangeCustomToken` accepts for this project's apps.
        public var serviceAccounts: [ServiceAccount]

        public init(number: String, id: String, apps: [App], serviceAccounts: [ServiceAccount] = []) {
            self.number = number
            self.id = id
            self.apps = apps
            self.serviceAccounts = serviceAccounts
        }
    }

    public struct ServiceAccount: Sendable {
        public var email: String
        /// A PEM public key or X.509 certificate.
        public var publicKeyPath: String
    }

    public struct App: Sendable {
        /// The Firebase app id, `1:<project number>:ios:<hex>`.
        public var appID: String
        public var teamID: String
        /// The app's bundle id and those of its App Clip: an App Clip attests under its own App ID.
        public var bundleIDs: [String]
        public var environment: Environment
        /// The lifetime of the App Check tokens minted for this app: 30 minutes to 7 days.
        public var tokenTTLSeconds: Int
        /// SHA-256 digests (hex) of the debug tokens this app accepts: the secrets themselves are never stored.
        public var debugTokenHashes: [[UInt8]]
        /// `apple_validation_category_01` values accepted (iOS 27+ attestations); nil accepts any.
        public var allowedValidationCategories: Set<UInt32>?
        /// The developer key DeviceCheck calls are signed with; nil: the DeviceCheck RPCs answer FAILED_PRECONDITION.
        public var deviceCheck: DeviceCheckKey?
        /// Tokens minted from an App Attest assertion carry the key's latest risk metric as `risk_metric`.
        public var riskMetricClaim: Bool = false

        public init(appID: String, teamID: String, bundleIDs: [String], environment: Environment,
                    tokenTTLSeconds: Int = 3_600, debugTokenHashes: [[UInt8]] = [],
                    allowedValidationCategories: Set<UInt32>? = nil, deviceCheck: DeviceCheckKey? = nil) {
            self.deviceCheck = deviceCheck
            self.appID = appID
            self.teamID = teamID
            self.bundleIDs = bundleIDs
            self.environment = environment
            self.tokenTTLSeconds = tokenTTLSeconds
            self.debugTokenHashes = debugTokenHashes
            self.allowedValidationCategories = allowedValidationCategories
        }
    }

    public enum Environment: String, Sendable, CaseIterable {
        case production, development
    }
}
