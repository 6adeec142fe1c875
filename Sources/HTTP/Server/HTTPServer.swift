import Basics
import Glibc
public import Observability
import Synchronization
import TLS

/// An HTTP/2 and HTTP/1.1 server: N event-loop threads, each accepting on its own SO_REUSEPORT socket for every
/// listener, and serving its connections to the end on that thread.
public final class HTTPServer: Sendable {
    let context: ServerContext
    /// One TLS context per listener (nil for cleartext), loaded in `init` so that a bad path fails early.
    private let tlsContexts: [TLSServerContext?]
    private let state = Mutex(State.idle)
    private let joinLock = Mutex(false)

    private enum State {
        case idle
        case running(loops: [EventLoop], threads: [pthread_t], bound: [(host: String, port: Int)])
        case stopped(bound: [(host: String, port: Int)])
    }

    /// Validates the configuration and loads TLS certificates and keys. Throws ``HTTPServerError`` naming the
    /// listener and the cause.
    public init(configuration: HTTPServerConfiguration, handler: any HTTPHandler, logger: Logger) throws {
        guard !configuration.listeners.isEmpty else {
            throw HTTPServerError(.invalidConfiguration, "no listeners configured")
        }
        guard configuration.eventLoopCount >= 0, configuration.maxConcurrentStreams > 0,
            configuration.maxHeaderListBytes > 0, configuration.maxRequestBodyBytes >= 0,
            configuration.maxBufferedOutputBytes > 0, configuration.idleTimeoutSeconds > 0,
            configuration.maxConnectionsPerAddress >= 0, configuration.handshakeTimeoutSeconds > 0,
            configuration.writeStallTimeoutSeconds > 0, configuration.responseDrainTimeoutSeconds > 0,
            configuration.maxHeaderFields > 0,
            configuration.requestTimeoutSeconds > 0,
            configuration.http2FrameBurst > 0, configuration.http2FrameRefillPerSecond >= 0
        else {
            throw HTTPServerError(.invalidConfiguration, "limits must be positive (eventLoopCount may be 0)")
        }
        var tlsContexts: [TLSServerContext?] = []
        for listener in configuration.listeners {
            let name = Self.name(of: listener)
            guard SocketAddress(host: listener.host, port: listener.port) != nil else {
                throw HTTPServerError(.invalidConfiguration, "listener \(name): host must be a numeric IPv4 or IPv6 address and port 0...65535")
            }
            do throws(TLSError) {
                tlsContexts.append(try listener.tls.map { tls throws(TLSError) in
                    try TLSServerContext(tls, listenerName: name, logger: logger)
                })
            } catch {
                throw HTTPServerError(.tlsSetupFailed, error.message)
            }
        }
        self.tlsContexts = tlsContexts
        self.context = ServerContext(configuration: configuration, handler: handler, logger: logger)
    }

    /// Binds every listener on every loop and starts the loop threads. Throws if a port is taken or a thread or
    /// epoll instance cannot be created; nothing is left running then.
    public func start() throws {
        try state.withLock { state throws(HTTPServerError) in
            guard case .idle = state else { return }
            // A peer that resets a TLS connection must not kill the process: OpenSSL writes with write(2), which
            // raises SIGPIPE; plain sockets use MSG_NOSIGNAL.
            signal(SIGPIPE, SIG_IGN)
            let configuration = context.configuration
            let loopCount = configuration.eventLoopCount > 0
                ? configuration.eventLoopCount : max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
            var loops: [EventLoop] = []
            for index in 0..<loopCount { loops.append(try EventLoop(context: context, index: index)) }
            var bound: [(host: String, port: Int)] = []
            for (index, listener) in configuration.listeners.enumerated() {
                let name = Self.name(of: listener)
                var port = listener.port
                for loop in loops {
                    guard let address = SocketAddress(host: listener.host, port: port) else {
                        throw HTTPServerError(.invalidConfiguration, "listener \(name): bad address")
                    }
                    let fd = try ListeningSocket.open(address, listenerName: name)
                    // With port 0 the first socket picks a port; the other loops join it there.
                    if port == 0 { port = ListeningSocket.boundPort(fd) }
                    do throws(HTTPServerError) {
                        try loop.addListener(fd: fd, index: index, tls: tlsContexts[index])
                    } catch {
                        Posix.close(fd)
                        throw error
                    }
                }
                bound.append((host: listener.host, port: port))
            }
            var threads: [pthread_t] = []
            for (index, loop) in loops.enumerated() {
                var thread = pthread_t()
                let retained = Unmanaged.passRetained(loop).toOpaque()
                let created = pthread_create(&thread, nil, { argument in
                    let loop = Unmanaged<EventLoop>.fromOpaque(argument!).takeRetainedValue()
                    loop.run()
                    return nil
                }, retained)
                guard created == 0 else {
                    Unmanaged<EventLoop>.fromOpaque(retained).release()
                    // Loops already running are stopped through the usual path.
                    for started in loops[0..<index] { started.execute { started.beginShutdown(deadline: 0) } }
                    for thread in threads { pthread_join(thread, nil) }
                    throw HTTPServerError(.systemResourceFailed, "cannot start event loop thread: \(Posix.describe(created))")
                }
                threads.append(thread)
            }
            state = .running(loops: loops, threads: threads, bound: bound)
            // A shutdown begun before the loops existed (a SIGTERM while starting) found none to tell: tell them now.
            if context.isShuttingDown.load(ordering: .relaxed) {
                let now = MonotonicClock.nanoseconds()
                for loop in loops { loop.execute { loop.beginShutdown(deadline: now) } }
            }
            context.logger.info(
                "HTTP server started",
                [("loops", String(loopCount)), ("listeners", bound.map { "\($0.host):\($0.port)" }.joined(separator: ","))])
        }
    }

    /// The address of each listener, in configuration order, with the real port when 0 was asked.
    public var boundAddresses: [(host: String, port: Int)] {
        state.withLock { state in
            switch state {
            case .idle: []
            case .running(_, _, let bound), .stopped(let bound): bound
            }
        }
    }

    /// Stops accepting (listeners close, so new connections are refused), sends HTTP/2 GOAWAY (a notice, then the
    /// final one), answers HTTP/1.1 with `Connection: close` and closes idle keep-alive connections, lets requests
    /// in flight finish, and force-closes what is left after `deadlineSeconds`. Returns at once; idempotent.
    public func beginGracefulShutdown(deadlineSeconds: Double) {
        guard !context.isShuttingDown.exchange(true, ordering: .relaxed) else { return }
        let deadline = MonotonicClock.nanoseconds() &+ UInt64(max(0, deadlineSeconds) * 1e9)
        let loops: [EventLoop] = state.withLock { state in
            if case .running(let loops, _, _) = state { return loops }
            return []
        }
        context.logger.info("HTTP server shutting down", [("deadlineSeconds", String(deadlineSeconds))])
        for loop in loops { loop.execute { loop.beginShutdown(deadline: deadline) } }
    }

    /// Blocks the caller until every loop has exited (at once if the server never started).
    public func waitUntilStopped() {
        joinLock.withLock { joined in
            guard !joined else { return }
            let threads: [pthread_t] = state.withLock { state in
                if case .running(_, let threads, _) = state { return threads }
                return []
            }
            for thread in threads { pthread_join(thread, nil) }
            joined = true
            state.withLock { state in
                if case .running(_, _, let bound) = state { state = .stopped(bound: bound) }
            }
        }
    }

    /// Connections currently open, across all loops.
    public var openConnections: Int { context.openConnections.load(ordering: .relaxed) }
    /// Requests received and not yet answered or abandoned (HTTP/2 streams and HTTP/1.1 requests).
    public var openStreams: Int { context.openStreams.load(ordering: .relaxed) }
    /// Bytes of memory quiet HTTP/2 connections have given back since the server started (monotonic).
    public var idleMemoryReleasedBytes: Int { context.idleMemoryReleasedBytes.load(ordering: .relaxed) }
    /// How long answers made on other threads (a verifier, a store's I/O thread) waited for their connection's loop
    /// to take them up: its wake-up, and the work queued on it before them.
    public var answerReturnTimes: DurationHistogram { context.answerReturn }
    /// TLS handshakes completed on every listener so far.
    public var tlsHandshakes: Int { sum { $0.handshakeCounts.completed } }
    /// Of those, the ones that resumed a session from a ticket (no certificate, no key exchange signature).
    public var tlsResumedHandshakes: Int { sum { $0.handshakeCounts.resumed } }
    /// Of those, the connections whose records the kernel protects (kTLS), as it sends and as it receives.
    public var tlsKernelConnections: (send: Int, receive: Int) {
        (sum { $0.handshakeCounts.kernelSend }, sum { $0.handshakeCounts.kernelReceive })
    }
    /// Whether graceful shutdown has begun.
    public var isShuttingDown: Bool { context.isShuttingDown.load(ordering: .relaxed) }

    /// The largest unsent output any connection held after a flush (for back-pressure tests).
    var peakBufferedOutputBytes: Int { context.peakBufferedOutputBytes.load(ordering: .relaxed) }

    private func sum(_ counter: (TLSServerContext) -> Int) -> Int {
        tlsContexts.reduce(0) { total, context in total + (context.map(counter) ?? 0) }
    }

    private static func name(of listener: HTTPListener) -> String {
        "\(listener.host):\(listener.port)\(listener.tls == nil ? "" : " (TLS)")"
    }
}
