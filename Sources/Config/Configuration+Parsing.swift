import AppAttest
import Crypto
import HTTP
import Foundation
import Observability

extension Configuration {
    /// Reads and validates the configuration file at `path`.
    public static func load(path: String) throws(ConfigurationError) -> Configuration {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(problems: ["\(path): cannot be read"])
        }
        let directory = (path as NSString).deletingLastPathComponent
        return try parse(json: [UInt8](data), baseDirectory: directory.isEmpty ? "." : directory)
    }

    /// Validates a configuration document; every problem found is reported, each naming its field.
    public static func parse(json: [UInt8], baseDirectory: String) throws(ConfigurationError) -> Configuration {
        let root: [String: Any]
        do {
            guard let object = try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any] else {
                throw ConfigurationError(problems: ["(root): must be a JSON object"])
            }
            root = object
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError(problems: ["(root): not valid JSON (\(error.localizedDescription))"])
        }
        let problems = JSONFieldReader.ProblemList()
        let reader = JSONFieldReader(object: root, path: "", problems: problems)
        var configuration = read(reader, baseDirectory: baseDirectory)
        configuration.admission = readAdmission(reader.object("admission"))
        guard problems.items.isEmpty else { throw ConfigurationError(problems: problems.items) }
        return configuration
    }

    private static func read(_ reader: JSONFieldReader, baseDirectory: String) -> Configuration {
        reader.rejectUnknownKeys(except: [
            "listeners", "eventLoops", "logLevel", "limits", "keys", "challengeTtlSeconds", "tokens", "verifier",
            "trust", "admin", "callers", "store", "projects", "apple", "receipts", "gateway", "admission",
        ])
        func resolve(_ path: String) -> String { path.hasPrefix("/") ? path : baseDirectory + "/" + path }

        let listeners = reader.objects("listeners").map { listener in
            listener.rejectUnknownKeys(except: ["address", "port", "tls", "role", "services"])
            let tls = listener.object("tls").map { tls in
                if tls.has("recordLayer") {
                    // attestd's own TLS 1.3 record layer is gone: OpenSSL (or the kernel) protects every record.
                    tls.problem(tls.field("recordLayer"), "is no longer an option (OpenSSL's record layer protects every TLS connection): remove it")
                }
                tls.rejectUnknownKeys(except: ["certificate", "privateKey", "clientCAFile", "recordLayer"])
                return TLS(
                    certificatePath: resolve(tls.string("certificate") ?? ""),
                    privateKeyPath: resolve(tls.string("privateKey") ?? ""),
                    clientCAFilePath: tls.string("clientCAFile", default: "").flatMap { $0.isEmpty ? nil : resolve($0) })
            }
            return Listener(
                address: listener.string("address", default: "127.0.0.1") ?? "127.0.0.1",
                port: listener.integer("port", default: 8080, in: 0...65535),
                tls: tls,
                services: readListenerServices(listener))
        }

        var logLevel = LogLevel.info
        if let name = reader.string("logLevel", default: "info") {
            if let level = LogLevel(name: name) { logLevel = level } else {
                reader.problem(reader.field("logLevel"), "must be one of \(LogLevel.allCases.map(\.name).joined(separator: ", "))")
            }
        }

        let limitsReader = reader.object("limits")
        limitsReader?.rejectUnknownKeys(except: [
            "maxConcurrentStreams", "maxHeaderListBytes", "maxMessageBytes", "maxBufferedOutputBytes",
            "idleTimeoutSeconds", "shutdownGraceSeconds", "defaultDeadlineSeconds",
        ])
        func limit(_ name: String, _ fallback: Int, _ range: ClosedRange<Int>) -> Int {
            limitsReader?.integer(name, default: fallback, in: range) ?? fallback
        }
        let limits = Limits(
            maxConcurrentStreams: limit("maxConcurrentStreams", 100, 1...10_000),
            maxHeaderListBytes: limit("maxHeaderListBytes", 16 * 1024, 1024...1 << 20),
            maxMessageBytes: limit("maxMessageBytes", 64 * 1024, 1024...16 << 20),
            maxBufferedOutputBytes: limit("maxBufferedOutputBytes", 1 << 20, 64 * 1024...256 << 20),
            idleTimeoutSeconds: limit("idleTimeoutSeconds", 300, 1...86_400),
            shutdownGraceSeconds: limit("shutdownGraceSeconds", 10, 0...3_600),
            defaultDeadlineSeconds: limit("defaultDeadlineSeconds", 15, 1...3_600))

        let keysReader = reader.object("keys", required: true)
        keysReader?.rejectUnknownKeys(except: ["challengeKey", "artifactKey", "tokenSigning", "sessionTicketKey", "generateMissing"])
        let keys = Keys(
            challengeKeyPath: resolve(keysReader?.string("challengeKey") ?? ""),
            artifactKeyPath: resolve(keysReader?.string("artifactKey") ?? ""),
            tokenSigning: keysReader.map { readTokenSigning($0, resolve: resolve) } ?? [],
            sessionTicketKeyPath: keysReader?.string("sessionTicketKey", default: "").flatMap { $0.isEmpty ? nil : resolve($0) },
            generateMissing: keysReader?.bool("generateMissing", default: false) ?? false)

        let tokensReader = reader.object("tokens")
        tokensReader?.rejectUnknownKeys(except: ["issuerPrefix", "algorithm"])
        let tokenAlgorithm = tokensReader?.choice("algorithm", default: SigningAlgorithm.rs256) ?? .rs256
        let issuerPrefix = tokensReader?.string("issuerPrefix", default: "https://firebaseappcheck.googleapis.com/")
            ?? "https://firebaseappcheck.googleapis.com/"
        if !issuerPrefix.hasPrefix("https://") || !issuerPrefix.hasSuffix("/") {
            reader.problem("tokens.issuerPrefix", "must be an https:// URL ending in /")
        }

        let verifierReader = reader.object("verifier")
        verifierReader?.rejectUnknownKeys(except: ["threads", "queueCapacity"])
        let verifier = Verifier(
            threads: verifierReader?.integer("threads", default: 0, in: 0...256) ?? 0,
            queueCapacity: verifierReader?.integer("queueCapacity", default: 4_096, in: 1...1_000_000) ?? 4_096)

        let trustReader = reader.object("trust")
        trustReader?.rejectUnknownKeys(except: ["extraAppAttestRoots", "extraReceiptRoots"])
        let trust = Trust(
            extraAppAttestRootPaths: (trustReader?.strings("extraAppAttestRoots", required: false) ?? []).map(resolve),
            extraReceiptRootPaths: (trustReader?.strings("extraReceiptRoots", required: false) ?? []).map(resolve))

        let adminReader = reader.object("admin")
        adminReader?.rejectUnknownKeys(except: ["tokenHashes"])
        let admin = Admin(tokenHashes: adminReader.map { sha256Digests($0, "tokenHashes", what: "admin token") } ?? [])

        let storeReader = reader.object("store")
        let store = readStore(storeReader, resolve: resolve)

        let appleReader = reader.object("apple")
        appleReader?.rejectUnknownKeys(except: ["deviceCheckURL", "riskMetricURL", "caBundle", "maxQueuedCalls"])
        // Every member is optional: an empty string reads as absent.
        func optional(_ name: String) -> String? { appleReader?.string(name, default: "").flatMap { $0.isEmpty ? nil : $0 } }
        for name in ["deviceCheckURL", "riskMetricURL"] {
            if let url = optional(name), !url.hasPrefix("https://") && !url.hasPrefix("http://") {
                reader.problem("apple.\(name)", "must be an https:// URL")
            }
        }
        var apple = AppleServices(
            deviceCheckURL: optional("deviceCheckURL"), riskMetricURL: optional("riskMetricURL"),
            caBundlePath: optional("caBundle").map(resolve))
        apple.maxQueuedCalls = appleReader?.integer("maxQueuedCalls", default: 256, in: 1...100_000) ?? 256

        let projects = reader.objects("projects").map { project in
            project.rejectUnknownKeys(except: ["number", "id", "apps", "serviceAccounts"])
            let number = project.string("number") ?? ""
            if !number.isEmpty && !number.allSatisfy(\.isASCIIDigit) {
                project.problem(project.field("number"), "must be the numeric project number")
            }
            let id = project.string("id") ?? ""
            if !id.isEmpty && (id.allSatisfy(\.isASCIIDigit) || id.contains("/")) {
                project.problem(project.field("id"), "must be the project id (letters, digits, hyphens), not a number")
            }
            let apps = project.objects("apps").map { app in readApp(app, projectNumber: number, resolve: resolve) }
            let serviceAccounts = project.objects("serviceAccounts", required: false).map { account in
                account.rejectUnknownKeys(except: ["email", "publicKey"])
                let email = account.string("email") ?? ""
                if !email.isEmpty && !email.contains("@") { account.problem(account.field("email"), "must be an email address") }
                return ServiceAccount(email: email, publicKeyPath: resolve(account.string("publicKey") ?? ""))
            }
            return Project(number: number, id: id, apps: apps, serviceAccounts: serviceAccounts)
        }
        checkUnique(projects.flatMap { [$0.number, $0.id] }, what: "project number or id", reader: reader)
        checkUnique(projects.flatMap { $0.apps.map(\.appID) }, what: "appId", reader: reader)

        var configuration = Configuration(
            listeners: listeners,
            eventLoops: reader.integer("eventLoops", default: 0, in: 0...256),
            logLevel: logLevel,
            limits: limits,
            keys: keys,
            challengeTTLSeconds: reader.integer("challengeTtlSeconds", default: 300, in: 30...3_600),
            tokens: Tokens(issuerPrefix: issuerPrefix, algorithm: tokenAlgorithm),
            verifier: verifier,
            trust: trust,
            admin: admin,
            receipts: readReceipts(reader.object("receipts")),
            store: store,
            projects: projects,
            apple: apple,
            gateway: readGateway(reader.object("gateway"), projects: projects))
        configuration.storeClockSkewSeconds = storeReader?.integer("clockSkewSeconds", default: 60, in: 0...3_600) ?? 60
        configuration.callers = readCallers(reader, admin: admin, projects: projects)
        return configuration
    }

    private static func readApp(_ app: JSONFieldReader, projectNumber: String, resolve: (String) -> String) -> App {
        app.rejectUnknownKeys(except: [
            "appId", "teamId", "bundleIds", "environment", "tokenTtlSeconds", "debugTokenHashes",
            "allowedValidationCategories", "deviceCheck", "riskMetricClaim",
        ])
        let appID = app.string("appId") ?? ""
        let parts = appID.split(separator: ":", omittingEmptySubsequences: false)
        if !appID.isEmpty && (parts.count != 4 || parts[0] != "1" || parts[2] != "ios" || parts[3].isEmpty) {
            app.problem(app.field("appId"), "must look like 1:<project number>:ios:<hex>")
        } else if !appID.isEmpty && parts[1] != projectNumber {
            app.problem(app.field("appId"), "belongs to project \(parts[1]), not \(projectNumber)")
        }
        let teamID = app.string("teamId") ?? ""
        if !teamID.isEmpty && !(teamID.count == 10 && teamID.allSatisfy { $0.isASCIIDigit || ("A"..."Z").contains($0) }) {
            app.problem(app.field("teamId"), "must be 10 capital letters or digits (the Apple team id)")
        }
        let bundleIDs = app.strings("bundleIds")
        for (index, bundle) in bundleIDs.enumerated()
        where bundle.isEmpty || bundle.contains(where: { !($0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-")) }) {
            app.problem("\(app.field("bundleIds"))[\(index)]", "must be a bundle id such as com.example.app")
        }
        let environment = app.choice("environment", default: Environment.production, required: true)
        let ttl = app.integer("tokenTtlSeconds", default: 3_600, in: 1_800...604_800)
        let debugTokenHashes = sha256Digests(app, "debugTokenHashes", what: "debug token")
        let categories = app.integers("allowedValidationCategories", in: 0...10).map { Set($0.map(UInt32.init)) }
        let deviceCheck = app.object("deviceCheck").map { key in
            key.rejectUnknownKeys(except: ["keyId", "privateKey"])
            let keyID = key.string("keyId") ?? ""
            if !keyID.isEmpty && !(keyID.count == 10 && keyID.allSatisfy { $0.isASCIIDigit || ("A"..."Z").contains($0) }) {
                key.problem(key.field("keyId"), "must be 10 capital letters or digits (the Apple Key ID)")
            }
            return DeviceCheckKey(keyID: keyID, privateKeyPath: resolve(key.string("privateKey") ?? ""))
        }
        var parsed = App(appID: appID, teamID: teamID, bundleIDs: bundleIDs, environment: environment, tokenTTLSeconds: ttl,
                         debugTokenHashes: debugTokenHashes, allowedValidationCategories: categories, deviceCheck: deviceCheck)
        parsed.riskMetricClaim = app.bool("riskMetricClaim", default: false)
        return parsed
    }

    /// The SQLite file used when the configuration names no `store`, beside the configuration file, so that a
    /// restart keeps the consumed challenges unless memory was asked for.
    public static let defaultStateFileName = "attestd-state.sqlite"

    /// `store`: absent (a SQLite file, `defaultStateFileName` beside the configuration), `{"kind":"memory"}`,
    /// `{"kind":"sqlite","path":…,"durability":"processCrash"|"powerLoss"}`,
    /// or `{"kind":"redis","redis":{host, port, username, password or passwordFile, database, keyPrefix, poolSize,
    /// connectTimeoutMs, commandTimeoutMs, tls, sentinel}}`, or `{"kind":"redisCluster","redisCluster":{nodes, …}}`
    /// (`readRedisCluster`), where `tls` is `{caFile, serverName, certificate, privateKey}`,
    /// every field optional (`{}` is TLS verified against the system's trust store, for the host's name). Every kind
    /// takes `clockSkewSeconds` (0 to 3600, default 60), read beside this.
    private static func readStore(_ reader: JSONFieldReader?, resolve: (String) -> String) -> Store {
        guard let reader else { return .sqlite(path: resolve(defaultStateFileName), survivesPowerLoss: false) }
        reader.rejectUnknownKeys(except: ["kind", "path", "durability", "redis", "redisCluster", "clockSkewSeconds"])
        switch reader.string("kind") ?? "" {
        case "memory":
            return .memory
        case "sqlite":
            let durability = reader.string("durability", default: "processCrash") ?? "processCrash"
            if durability != "processCrash" && durability != "powerLoss" {
                reader.problem(reader.field("durability"), "must be processCrash or powerLoss")
            }
            return .sqlite(path: resolve(reader.string("path") ?? ""), survivesPowerLoss: durability == "powerLoss")
        case "redis":
            guard let redis = reader.object("redis", required: true) else { return .memory }
            redis.rejectUnknownKeys(except: [
                "host", "port", "username", "password", "passwordFile", "database", "keyPrefix", "poolSize",
                "connectTimeoutMs", "commandTimeoutMs", "tls", "sentinel",
            ])
            let password = readRedisPassword(redis, resolve: resolve)
            return .redis(Redis(
                host: redis.string("host", default: "127.0.0.1") ?? "127.0.0.1",
                port: redis.integer("port", default: 6379, in: 1...65535),
                username: redis.string("username", default: "").flatMap { $0.isEmpty ? nil : $0 },
                password: password,
                database: redis.integer("database", default: 0, in: 0...15),
                keyPrefix: redis.string("keyPrefix", default: "attestd:") ?? "attestd:",
                poolSize: redis.integer("poolSize", default: 8, in: 1...256),
                connectTimeoutMilliseconds: redis.integer("connectTimeoutMs", default: 500, in: 10...60_000),
                commandTimeoutMilliseconds: redis.integer("commandTimeoutMs", default: 500, in: 10...60_000),
                tls: redis.object("tls").map { readRedisTLS($0, resolve: resolve) },
                sentinel: redis.object("sentinel").map(readRedisSentinel)))
        case "redisCluster":
            guard let cluster = reader.object("redisCluster", required: true) else { return .memory }
            return .redisCluster(readRedisCluster(cluster, resolve: resolve))
        default:
            reader.problem(reader.field("kind"), "must be memory, sqlite, redis or redisCluster")
            return .memory
        }
    }

    /// `store.redis.tls`: paths resolve against the configuration's directory; empty strings count as absent.
    static func readRedisTLS(_ tls: JSONFieldReader, resolve: (String) -> String) -> RedisTLS {
        tls.rejectUnknownKeys(except: ["caFile", "serverName", "certificate", "privateKey"])
        func optional(_ name: String) -> String? {
            tls.string(name, default: "").flatMap { $0.isEmpty ? nil : $0 }
        }
        let certificate = optional("certificate").map(resolve)
        let privateKey = optional("privateKey").map(resolve)
        if (certificate == nil) != (privateKey == nil) {
            tls.problem(tls.field(certificate == nil ? "certificate" : "privateKey"),
                        "is required with \(certificate == nil ? "privateKey" : "certificate") (mutual TLS needs both)")
        }
        return RedisTLS(caFilePath: optional("caFile").map(resolve), serverName: optional("serverName"),
                        certificatePath: certificate, privateKeyPath: privateKey)
    }

    /// An optional list of SHA-256 digests written as 64 hex digits.
    package static func sha256Digests(_ reader: JSONFieldReader, _ name: String, what: String) -> [[UInt8]] {
        reader.strings(name, required: false).enumerated().compactMap { index, text in
            guard let digest = Hex.decode(text), digest.count == 32 else {
                reader.problem("\(reader.field(name))[\(index)]", "must be the SHA-256 of the \(what), as 64 hex digits")
                return nil
            }
            return digest
        }
    }

    private static func checkUnique(_ values: [String], what: String, reader: JSONFieldReader) {
        var seen = Set<String>()
        for value in values where !value.isEmpty && !seen.insert(value).inserted {
            reader.problem("projects", "\(what) \(value) appears more than once")
        }
    }
}
