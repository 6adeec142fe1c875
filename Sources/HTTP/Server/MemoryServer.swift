public import Observability

/// A server without sockets or threads: connections whose bytes are pushed in and read out in memory, run by the
/// real connection code (protocol detection, HTTP/1.1, HTTP/2 over nghttp2's memory API) on the calling thread.
/// For fuzzing (`Fuzz/HTTP2`) and in-process tests; not for serving.
///
/// Everything runs on the thread that created the server: the handler is called there, and responses it gives
/// inline are written without a hop.
@_spi(Testing) public final class MemoryServer {
    private let context: ServerContext
    fileprivate let loop: EventLoop

    /// A server with `configuration`'s limits (its listeners are ignored) calling `handler`.
    public init(
        configuration: HTTPServerConfiguration, handler: any HTTPHandler, logger: Logger
    ) throws(HTTPServerError) {
        context = ServerContext(configuration: configuration, handler: handler, logger: logger)
        loop = try EventLoop(context: context, index: 0)
        loop.adoptCallingThread()
    }

    /// Opens a connection, as if a client had just connected over cleartext TCP.
    public func openConnection() -> MemoryConnection {
        MemoryConnection(server: self)
    }

    /// Connections and streams open now (what the server's gauges report).
    public var openConnections: Int { context.openConnections.load(ordering: .relaxed) }
    public var openStreams: Int { context.openStreams.load(ordering: .relaxed) }
}

/// One connection of a ``MemoryServer``.
@_spi(Testing) public final class MemoryConnection {
    // Keeps the loop alive: a connection refers to it unowned.
    private let server: MemoryServer
    private let output = MemoryOutput()
    private let connection: Connection

    fileprivate init(server: MemoryServer) {
        self.server = server
        connection = server.loop.openMemoryConnection(output: output)
    }

    deinit { connection.close() }

    /// Feeds `bytes` as if read from the socket, runs the loop's pending work (responses posted from other threads
    /// included), and returns what the server wrote since the last call.
    public func exchange(_ bytes: [UInt8]) -> [UInt8] {
        if !bytes.isEmpty { connection.receive(memory: bytes) }
        server.loop.runPendingWork()
        return output.take()
    }

    /// Starts a graceful shutdown of this connection (HTTP/2: the GOAWAY notice), then one timer tick per call of
    /// ``shutdownTick()`` brings the final GOAWAY.
    public func beginGracefulShutdown() {
        connection.beginGracefulShutdown()
    }

    /// One timer tick of a draining server.
    public func shutdownTick() {
        connection.shutdownTick()
    }

    /// What the idle timeout does to this connection.
    public func closeBecauseIdle() {
        connection.closeBecauseIdle()
    }

    /// Whether the server has closed the connection.
    public var isClosed: Bool { connection.isClosed }

    /// Closes the connection as if the socket went away.
    public func close() {
        connection.close()
    }
}
