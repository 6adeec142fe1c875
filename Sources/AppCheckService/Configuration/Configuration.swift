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
    public var projects: [Project]

    public struct Listener: Sendable {
        public var address: String
        public var port: Int
        public var tls: TLS?
    }

    public struct TLS: Sendable {
        public var certificatePath: String
        public var privateKeyPath: String
    }

    public struct Limits: Sendable {
        public var maxConcurrentStreams: Int
        public var maxHeaderListBytes: Int
        public var maxMessageBytes: Int
        public var maxBufferedOutputBytes: Int
        public var idleTimeoutSeconds: Int
        public var shutdownGraceSeconds: Int
    }

    public struct Keys: Sendable {
        /// The file holding the challenge MAC keys (see `ChallengeKeyFile`).
        public var challengeKeyPath: String
        /// Create missing key files with fresh random keys: for development only.
        public var generateMissing: Bool
    }

    public struct Project: Sendable {
        public var number: String
        public var id: String
        public var apps: [App]

        public init(number: String, id: String, apps: [App]) {
            self.number = number
            self.id = id
            self.apps = apps
        }
    }

    public struct App: Sendable {
        /// The Firebase app id, `1:<project number>:ios:<hex>`.
        public var appID: String
        public var teamID: String
        /// The app's bundle id and those of its App Clip: an App Clip attests under its own App ID.
        public var bundleIDs: [String]
        public var environment: Environment

        public init(appID: String, teamID: String, bundleIDs: [String], environment: Environment) {
            self.appID = appID
            self.teamID = teamID
            self.bundleIDs = bundleIDs
            self.environment = environment
        }
    }

    public enum Environment: String, Sendable {
        case production, development
    }
}
