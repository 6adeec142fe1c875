import Foundation
import Storage
import Synchronization
import Testing

/// The three implementations of `StateStore`, so one semantic suite runs against each.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory, sqlite, redis
    /// Redis over TLS, the server's certificate verified against a test CA.
    case redisTLS
    /// A Redis Cluster of three primaries and three replicas, shared by the tests of this process, each store
    /// under a key prefix of its own.
    case redisCluster
    var testDescription: String { rawValue }

    /// The kinds that keep the receipt refresher's schedule (a cluster does not: `RedisClusterStateStore`).
    static let keepingReceiptSchedule = allCases.filter { $0 != .redisCluster }
}

/// A store of one kind with what it needs to live (a file, a server) and a way to let time pass for it.
final class StoreFixture: @unchecked Sendable {
    let kind: StoreKind
    let store: any StateStore
    let clock = TestClock()
    private let directory: TemporaryDirectory?
    /// The Redis server of a Redis fixture.
    let server: RedisServer?
    private let certificates: TestCertificates?

    /// - Parameter clockSkewSeconds: how long past its expiry the store keeps a consumed record.
    init(_ kind: StoreKind, clockSkewSeconds: Int64 = 60) throws {
        self.kind = kind
        switch kind {
        case .memory:
            directory = nil
            server = nil
            certificates = nil
            store = MemoryStateStore(clock: clock.source, clockSkewSeconds: clockSkewSeconds)
        case .sqlite:
            let directory = try TemporaryDirectory("sqlite")
            self.directory = directory
            server = nil
            certificates = nil
            var configuration = SQLiteConfiguration(path: directory.file("state.db"), clock: clock.source)
            configuration.clockSkewSeconds = clockSkewSeconds
            store = try SQLiteStateStore(configuration)
        case .redis:
            directory = nil
            let server = try RedisServer()
            self.server = server
            certificates = nil
            var configuration = RedisConfiguration(port: server.port)
            configuration.clockSkewSeconds = clockSkewSeconds
            store = RedisStateStore(configuration)
        case .redisTLS:
            directory = nil
            let certificates = try TestCertificates()
            self.certificates = certificates
            let server = try RedisServer(tls: RedisServer.TLS(
                certificate: certificates.server.certificate, key: certificates.server.key, caFile: certificates.caFile))
            self.server = server
            var configuration = RedisConfiguration(port: server.port, tls: RedisTLSConfiguration(caFilePath: certificates.caFile))
            configuration.clockSkewSeconds = clockSkewSeconds
            store = RedisStateStore(configuration)
        case .redisCluster:
            directory = nil
            server = nil
            certificates = nil
            var connection = RedisConfiguration(keyPrefix: SharedRedisCluster.freshPrefix())
            connection.clockSkewSeconds = clockSkewSeconds
            store = RedisClusterStateStore(RedisClusterConfiguration(seeds: try SharedRedisCluster.servers().seeds, connection: connection))
        }
    }

    /// The unix time the store should think it is.
    var now: Int64 {
        isRedis ? Int64(Date().timeIntervalSince1970) : clock.now
    }

    private var isRedis: Bool { kind == .redis || kind == .redisTLS || kind == .redisCluster }

    /// Lets time pass until a record expiring at `expiresAt` has expired for this store: the test clock jumps;
    /// Redis, which expires keys by its own clock, is waited for.
    func passExpiry(of expiresAt: Int64) {
        guard isRedis else {
            clock.set(expiresAt + 1)
            return
        }
        let wait = Double(expiresAt + 1) - Date().timeIntervalSince1970
        if wait > 0 { Thread.sleep(forTimeInterval: wait + 0.05) }
    }

    /// Lets time pass until one millisecond after `second` for this store: the test clock, whose unit is the
    /// second, jumps to it; Redis, which reads its own clock, is waited for.
    func reach(_ second: Int64) {
        guard isRedis else {
            clock.set(second)
            return
        }
        let wait = Double(second) + 0.001 - Date().timeIntervalSince1970
        if wait > 0 { Thread.sleep(forTimeInterval: wait) }
    }
}

/// Runs `body` on `count` threads of their own at once (the verifier pool's shape: blocking calls, real threads)
/// and returns what each returned.
func onThreads<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) -> T) -> [T] {
    let results = Results<T>(count)
    let group = DispatchGroup()
    let start = DispatchSemaphore(value: 0)
    for index in 0..<count {
        group.enter()
        Thread {
            start.wait()
            results.set(index, body(index))
            group.leave()
        }.start()
    }
    for _ in 0..<count { start.signal() }
    group.wait()
    return results.values
}

private final class Results<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [T?]
    init(_ count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ index: Int, _ value: T) { lock.withLock { slots[index] = value } }
    var values: [T] { lock.withLock { slots.compactMap { $0 } } }
}

/// The one answer of a write handed over with a completion, waited for.
final class Completions<Outcome: Sendable>: Sendable {
    private let answer = Mutex<Result<Outcome, StoreError>?>(nil)

    var completion: StoreCompletion<Outcome> {
        { [self] outcome, _ in answer.withLock { $0 = outcome } }
    }

    /// Waits (at most 10 s) for the answer; a `StoreError` if none came.
    func wait() -> Result<Outcome, StoreError> {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let answer = answer.withLock({ $0 }) { return answer }
            Thread.sleep(forTimeInterval: 0.002)
        }
        return .failure(StoreError("no answer within 10 s"))
    }
}
