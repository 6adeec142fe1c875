import Observability
import Synchronization

/// What every loop and connection of one server shares: settings, the handler, the logger and the gauges.
final class ServerContext: Sendable {
    let configuration: HTTPServerConfiguration
    let handler: any HTTPHandler
    let logger: Logger
    let openConnections = Atomic<Int>(0)
    let openStreams = Atomic<Int>(0)
    let isShuttingDown = Atomic<Bool>(false)
    /// The most unsent output any connection has held after a flush (a test hook for back-pressure).
    let peakBufferedOutputBytes = Atomic<Int>(0)
    /// Bytes quiet connections have given back so far (`Connection.trimIdleMemory`).
    let idleMemoryReleasedBytes = Atomic<Int>(0)
    /// Peers cut off for abuse, by cause.
    let abuse = AbuseCounters()
    /// How long answers made on other threads waited for their loop to take them up (``HTTPServer/answerReturnTimes``).
    let answerReturn = DurationHistogram()
    /// Open connections per peer address, kept only when ``HTTPServerConfiguration/maxConnectionsPerAddress`` is set.
    private let connectionsPerAddress = Mutex<[String: Int]>([:])

    init(configuration: HTTPServerConfiguration, handler: any HTTPHandler, logger: Logger) {
        self.configuration = configuration
        self.handler = handler
        self.logger = logger
    }

    /// Counts a new connection from `host`; false (and nothing counted) when it already holds the most allowed.
    func admitConnection(from host: String) -> Bool {
        let limit = configuration.maxConnectionsPerAddress
        let admitted = connectionsPerAddress.withLock { counts in
            let open = counts[host, default: 0]
            guard open < limit else { return false }
            counts[host] = open + 1
            return true
        }
        if !admitted { abuse.refusedConnections.add(1, ordering: .relaxed) }
        return admitted
    }

    /// Forgets a connection that ``admitConnection(from:)`` counted.
    func releaseConnection(from host: String) {
        connectionsPerAddress.withLock { counts in
            guard let open = counts[host] else { return }
            if open <= 1 { counts.removeValue(forKey: host) } else { counts[host] = open - 1 }
        }
    }

    func notePendingOutput(_ bytes: Int) {
        var current = peakBufferedOutputBytes.load(ordering: .relaxed)
        while bytes > current {
            let (exchanged, original) = peakBufferedOutputBytes.compareExchange(
                expected: current, desired: bytes, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }
}

/// Connections cut off for abuse, by cause (read by ``HTTPServer/abuseCounts``).
final class AbuseCounters: Sendable {
    /// Closed at accept: their address already held `maxConnectionsPerAddress` connections.
    let refusedConnections = Atomic<Int>(0)
    /// HTTP/2 peers sent GOAWAY(ENHANCE_YOUR_CALM): floods, rapid reset, stalled responses.
    let calmedConnections = Atomic<Int>(0)
    /// Closed because output made no progress for `writeStallTimeoutSeconds`, or an HTTP/2 response body was not
    /// taken within `responseDrainTimeoutSeconds`, or a byte of output waited that long for the socket.
    let stalledConnections = Atomic<Int>(0)
    /// Cut off because a request took longer than `requestTimeoutSeconds` to arrive (slowloris).
    let slowRequests = Atomic<Int>(0)
    /// Closed because no HTTP arrived within `handshakeTimeoutSeconds`.
    let handshakeTimeouts = Atomic<Int>(0)
}
