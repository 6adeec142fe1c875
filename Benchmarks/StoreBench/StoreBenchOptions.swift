import Foundation
import Storage

/// The command line of attestd-store-bench.
struct StoreBenchOptions {
    static let usage = """
        usage: attestd-store-bench [--store memory|sqlite|redis|redisCluster] [--path FILE] [--redis-port N] [--redis-pid PID]
                                   [--threads N] [--keys-per-thread N] [--attestations N] [--assertions N]
                                   [--read-before-advance] [--wait] [--hold N] [--receipt-bytes N] [--work-us N]
                                   [--completion-work-us N] [--outstanding N]
                                   [--redis-tls-ca FILE] [--redis-tls-name NAME]
          By default each thread hands its writes over with a completion and holds them back for N writes
          (--hold, default 8) before committing, as the verifier threads do; --wait makes each call and waits for it.
          --work-us spends N µs of CPU per exchange before its write (a signature check's worth), so that the
          store's cost shows as throughput lost against the same work with --store memory.
          --completion-work-us spends N µs of CPU in each write's completion (signing the token's worth).
          --outstanding: a thread waits for answers once N of its writes are unanswered (default 256), as a
          server's clients wait for theirs.
          --redis-tls-ca speaks TLS to Redis, verifying its certificate with FILE for NAME (default 127.0.0.1).
          --store redisCluster reaches a Redis Cluster through the node at --redis-port (WAIT 1 after each pipeline
          of writes; --replicas 0 waits for none).
        """

    var store = "sqlite"
    var path = ""
    var redisPort = 6379
    var redisPID: Int32?
    var threads = 2
    var keysPerThread = 64
    var attestations = 20_000
    var assertions = 100_000
    var readBeforeAdvance = false
    var wait = false
    var hold = 8
    var receiptBytes = 0
    var workMicroseconds = 0
    var maxOutstanding = 256
    var completionWorkMicroseconds = 0
    var redisTLSCA: String?
    var redisTLSName = "127.0.0.1"
    var replicasToAcknowledge = 1

    init(_ arguments: ArraySlice<String>) throws {
        var arguments = arguments
        func value(_ name: String) throws -> String {
            guard let value = arguments.popFirst() else { throw StoreBenchError("\(name) needs a value") }
            return value
        }
        func integer(_ name: String) throws -> Int {
            guard let number = Int(try value(name)), number > 0 else { throw StoreBenchError("\(name) needs a positive number") }
            return number
        }
        while let argument = arguments.popFirst() {
            switch argument {
            case "--store": store = try value(argument)
            case "--path": path = try value(argument)
            case "--redis-port": redisPort = try integer(argument)
            case "--redis-pid": redisPID = Int32(try integer(argument))
            case "--threads": threads = try integer(argument)
            case "--keys-per-thread": keysPerThread = try integer(argument)
            case "--attestations": attestations = try integer(argument)
            case "--assertions": assertions = try integer(argument)
            case "--read-before-advance": readBeforeAdvance = true
            case "--wait": wait = true
            case "--hold": hold = try integer(argument)
            case "--receipt-bytes": receiptBytes = try integer(argument)
            case "--work-us": workMicroseconds = try integer(argument)
            case "--outstanding": maxOutstanding = try integer(argument)
            case "--completion-work-us": completionWorkMicroseconds = try integer(argument)
            case "--redis-tls-ca": redisTLSCA = try value(argument)
            case "--redis-tls-name": redisTLSName = try value(argument)
            case "--replicas":
                guard let count = Int(try value(argument)), count >= 0 else { throw StoreBenchError("--replicas needs a count") }
                replicasToAcknowledge = count
            default: throw StoreBenchError("unknown option \(argument)")
            }
        }
    }

    func openStore() throws -> any StateStore {
        switch store {
        case "memory":
            return MemoryStateStore(clock: .system)
        case "sqlite":
            let file = path.isEmpty ? NSTemporaryDirectory() + "attestd-store-bench-\(getpid()).sqlite" : path
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) }
            return try SQLiteStateStore(SQLiteConfiguration(path: file))
        case "redis":
            let tls = redisTLSCA.map { RedisTLSConfiguration(caFilePath: $0, serverName: redisTLSName) }
            let store = RedisStateStore(RedisConfiguration(port: redisPort, keyPrefix: "bench\(getpid()):", tls: tls))
            try store.ping()
            return store
        case "redisCluster":
            let store = RedisClusterStateStore(RedisClusterConfiguration(
                seeds: [.init(host: "127.0.0.1", port: redisPort)],
                connection: RedisConfiguration(keyPrefix: "bench\(getpid()):"), replicasToAcknowledge: replicasToAcknowledge))
            try store.ping()
            return store
        default:
            throw StoreBenchError("--store is memory, sqlite, redis or redisCluster")
        }
    }
}

struct StoreBenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
