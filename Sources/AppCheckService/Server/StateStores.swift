import Config
import Foundation
import HTTP
import Observability
import Storage

/// Opens the state store the configuration names.
enum StateStores {
    /// - Parameter clockSkewSeconds: how long past its expiry a consumed challenge or token is kept.
    static func open(_ store: Configuration.Store, clockSkewSeconds: Int, logger: Logger) throws -> any StateStore {
        let clockSkew = Int64(clockSkewSeconds)
        switch store {
        case .memory:
            logger.warning("state is kept in memory (store.kind memory): a restart forgets consumed challenges, counters and keys")
            return MemoryStateStore(clock: .system, clockSkewSeconds: clockSkew)
        case .sqlite(let path, let survivesPowerLoss):
            logger.info("state store: SQLite", [("path", path), ("durability", survivesPowerLoss ? "powerLoss" : "processCrash")])
            let directory = (path as NSString).deletingLastPathComponent
            if !directory.isEmpty && !FileManager.default.fileExists(atPath: directory) {
                try FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
            var configuration = SQLiteConfiguration(path: path, durability: survivesPowerLoss ? .powerLoss : .processCrash)
            configuration.clockSkewSeconds = clockSkew
            return try SQLiteStateStore(configuration)
        case .redis(let redis):
            logger.info("state store: Redis", [
                ("host", redis.host), ("port", String(redis.port)), ("keyPrefix", redis.keyPrefix),
                ("tls", redis.tls == nil ? "off" : "verified"),
                ("caFile", redis.tls.map { $0.caFilePath ?? "system trust store" } ?? "-"),
                ("clientCertificate", redis.tls?.certificatePath ?? "-"),
                ("sentinelMaster", redis.sentinel?.masterName ?? "-"),
            ])
            var configuration = RedisConfiguration(
                host: redis.host, port: redis.port, username: redis.username, password: redis.password,
                database: redis.database, keyPrefix: redis.keyPrefix, poolSize: redis.poolSize,
                connectTimeoutMilliseconds: redis.connectTimeoutMilliseconds,
                commandTimeoutMilliseconds: redis.commandTimeoutMilliseconds,
                tls: redis.tls.map { tls in
                    RedisTLSConfiguration(caFilePath: tls.caFilePath, serverName: tls.serverName,
                                          certificatePath: tls.certificatePath, privateKeyPath: tls.privateKeyPath)
                },
                sentinel: redis.sentinel.map { sentinel in
                    RedisSentinelConfiguration(sentinels: sentinel.sentinels.map { .init(host: $0.host, port: $0.port) },
                                               masterName: sentinel.masterName, password: sentinel.password)
                })
            configuration.clockSkewSeconds = clockSkew
            // The store's I/O threads answer exchanges (their completions sign tokens and post the answers): each
            // holds its answers' wake-ups in a batch of its own, so a loop is woken once per pipeline, not once per
            // answer (which cost 2.5 context switches per RS256 assertion).
            let store = RedisStateStore(configuration)
            // Not fatal: attestd fails closed (UNAVAILABLE) until Redis answers, and recovers by itself.
            do {
                try store.ping()
                checkPersistence(of: store, logger: logger)
            } catch {
                logger.error("Redis is not answering yet; exchanges answer UNAVAILABLE until it does", [("error", error.description)])
            }
            return store
        case .redisCluster(let cluster):
            return openCluster(cluster, clockSkewSeconds: clockSkew, logger: logger)
        }
    }

    /// Warns when Redis keeps nothing on disk, so that a Redis restart would forget every consumed challenge and
    /// token; a server that refuses CONFIG (a managed Redis) is logged as unchecked, never fatal.
    private static func checkPersistence(of store: RedisStateStore, logger: Logger) {
        do {
            let persistence = try store.persistence()
            if persistence.keepsNothingOnDisk {
                logger.warning("Redis keeps nothing on disk (appendonly no, save \"\"): a Redis restart forgets every consumed challenge and token, which may then be replayed; set appendonly yes")
            }
        } catch {
            logger.warning("could not check whether Redis keeps its data on disk (CONFIG GET refused)", [("error", error.description)])
        }
    }
}
