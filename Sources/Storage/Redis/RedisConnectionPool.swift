import Dispatch
import Synchronization
import TLS

/// The connections of one node to Redis, used from the verifier threads. A connection that fails is dropped, and
/// so are the idle ones made before it (after a server restart they are all dead); new connections are made on
/// demand, but after a failed attempt no new one is tried until a backoff has passed, so while Redis is down every
/// call fails at once (fail closed) and the pool recovers on its own once Redis answers again.
final class RedisConnectionPool: Sendable {
    private struct State: ~Copyable {
        var idle: [RedisConnection] = []
        var generation = 0
        var failedAttempts = 0
        var retryAt: ContinuousClock.Instant?
        var lastFailure = ""
    }

    private let configuration: RedisConfiguration
    private let state = Mutex(State())
    /// Made on the first connection over TLS, then shared by every connection of the pool.
    private let tlsContext = Mutex<TLSClientContext?>(nil)
    /// One permit per connection the pool may have open.
    private let permits: DispatchSemaphore

    init(_ configuration: RedisConfiguration) {
        self.configuration = configuration
        permits = DispatchSemaphore(value: max(1, configuration.poolSize))
    }

    /// Runs `body` on a connection. When a connection that had sat idle turns out closed by the server, the call is
    /// retried once on a new one: the old one died with a server restart before this call reached it.
    func withConnection<T>(_ body: (RedisConnection) throws(RedisFailure) -> T) throws(StoreError) -> T {
        try takePermit()
        defer { permits.signal() }
        var retried = false
        while true {
            let (connection, reused) = try checkOut()
            do throws(RedisFailure) {
                let result = try body(connection)
                checkIn(connection)
                return result
            } catch {
                keepOrRetire(connection, after: error)
                guard case .closed = error, reused, !retried else { throw error.storeError }
                retried = true
            }
        }
    }

    /// A connection held across the two halves of a pipeline (`RedisPipeline.start`, then `InFlight.finish`), so
    /// that one thread can have pipelines in flight to several servers at once. Given back with `release`.
    struct Lease {
        let connection: RedisConnection
        /// It had sat idle in the pool: a `.closed` failure means the server closed it before this call reached it.
        let reused: Bool
    }

    /// Takes a connection, as `withConnection` does, until `release`.
    func lease() throws(StoreError) -> Lease {
        try takePermit()
        do throws(StoreError) {
            let (connection, reused) = try checkOut()
            return Lease(connection: connection, reused: reused)
        } catch {
            permits.signal()
            throw error
        }
    }

    /// Gives back a leased connection: kept for the next call, or dropped after a connection failure.
    func release(_ lease: Lease, after failure: RedisFailure? = nil) {
        if let failure { keepOrRetire(lease.connection, after: failure) } else { checkIn(lease.connection) }
        permits.signal()
    }

    private func takePermit() throws(StoreError) {
        guard permits.wait(timeout: .now() + .milliseconds(configuration.commandTimeoutMilliseconds)) == .success else {
            throw StoreError("redis: no free connection within \(configuration.commandTimeoutMilliseconds) ms")
        }
    }

    /// After a server's error reply the connection is still good; after a connection failure it is dropped.
    private func keepOrRetire(_ connection: RedisConnection, after failure: RedisFailure) {
        switch failure {
        case .server: checkIn(connection)
        case .connection, .closed: retire(connection)
        }
    }

    private func checkOut() throws(StoreError) -> (RedisConnection, reused: Bool) {
        let now = ContinuousClock.now
        let taken: Result<(RedisConnection?, Int), StoreError> = state.withLock { state in
            while let connection = state.idle.popLast() {
                if connection.generation == state.generation { return .success((connection, state.generation)) }
            }
            if let retryAt = state.retryAt, now < retryAt {
                let wait = (retryAt - now).components
                let milliseconds = wait.seconds * 1_000 + wait.attoseconds / 1_000_000_000_000_000
                return .failure(StoreError("redis: unavailable (\(state.lastFailure)); next attempt in \(milliseconds) ms"))
            }
            return .success((nil, state.generation))
        }
        let (idle, generation) = try taken.get()
        if let idle { return (idle, true) }
        do throws(RedisFailure) {
            let connection = try Self.connect(configuration, tls: try tls(), generation: generation)
            state.withLock { state in
                state.failedAttempts = 0
                state.retryAt = nil
            }
            return (connection, false)
        } catch {
            let failure = error.storeError
            state.withLock { state in
                let shift = min(state.failedAttempts, 16)
                let delay = min(configuration.reconnectBackoffMilliseconds << shift, configuration.maxReconnectBackoffMilliseconds)
                state.failedAttempts += 1
                state.retryAt = ContinuousClock.now + .milliseconds(delay)
                state.lastFailure = failure.description
            }
            throw failure
        }
    }

    /// The pool's TLS context, loaded on first use (a file that cannot be loaded fails the attempt, with backoff);
    /// nil over plain TCP.
    private func tls() throws(RedisFailure) -> TLSClientContext? {
        guard let options = configuration.tls else { return nil }
        let loaded: Result<TLSClientContext, RedisFailure> = tlsContext.withLock { context in
            if let context { return .success(context) }
            return Result { () throws(RedisFailure) in try options.clientContext() }.map { made in
                context = made
                return made
            }
        }
        return try loaded.get()
    }

    private func checkIn(_ connection: RedisConnection) {
        state.withLock { state in
            if connection.generation == state.generation { state.idle.append(connection) }
        }
    }

    private func retire(_ connection: RedisConnection) {
        state.withLock { state in
            if connection.generation == state.generation { state.generation += 1 }
            state.idle = []
        }
    }
}
