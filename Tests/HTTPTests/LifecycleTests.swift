import Basics
import Glibc
@testable import HTTP
import Observability
import Testing
import TLS

@Suite("Server lifecycle: shutdown, idle timeout, errors")
struct LifecycleTests {
    @Test("graceful shutdown lets an in-flight request finish, refuses new connections, and stops")
    func gracefulShutdown() throws {
        try TestServer.run { server in
            let client = try H2TestClient(port: server.port)
            let stream = client.request(path: "/slow/300")
            client.run(seconds: 0.1) { false }
            server.server.beginGracefulShutdown(deadlineSeconds: 5)
            server.server.beginGracefulShutdown(deadlineSeconds: 5)
            #expect(server.server.isShuttingDown)
            #expect(client.run { client.responses[stream]!.closed })
            #expect(client.responses[stream]?.text == "slow 300")
            #expect(client.goAwayLastStreamIDs.first == Int32.max)
            #expect(client.goAwayLastStreamIDs.last == stream)
            #expect(TestSocket.isRefused(port: server.port))
            server.server.waitUntilStopped()
            #expect(server.server.openConnections == 0)
        }
    }

    @Test("the event loops' threads carry names, as top -H and perf show them")
    func loopThreadsNamed() throws {
        try TestServer.run { server in
            var names: Set<String> = []
            // SO_REUSEPORT spreads connections over the two loops by a hash of their addresses, so each new one
            // lands on either loop: 64 tries all landing on one loop is a 2^-63 chance (8 tries did, once, in CI).
            for _ in 0..<64 where names.count < 2 {
                let client = try H2TestClient(port: server.port)
                let stream = client.request(path: "/thread-name")
                #expect(client.run { client.responses[stream]?.closed == true })
                names.insert(client.responses[stream]?.text ?? "")
            }
            #expect(names == ["event-loop-0", "event-loop-1"])
        }
    }

    @Test("graceful shutdown closes idle HTTP/1.1 connections and answers busy ones with Connection: close")
    func gracefulShutdownHTTP1() throws {
        try TestServer.run { server in
            let idle = try TestSocket(port: server.port)
            idle.send("GET /warm HTTP/1.1\r\nHost: a\r\n\r\n")
            _ = idle.receive { HTTP1Responses.parse($0).count == 1 }
            let busy = try TestSocket(port: server.port)
            busy.send("GET /slow/300 HTTP/1.1\r\nHost: a\r\n\r\n")
            waitBriefly(milliseconds: 100)
            server.server.beginGracefulShutdown(deadlineSeconds: 5)
            #expect(idle.receive().closed)
            let (bytes, closed) = busy.receive()
            let response = try #require(HTTP1Responses.parse(bytes).first)
            #expect(response.body == "slow 300")
            #expect(response.headers["connection"] == "close")
            #expect(closed)
            server.server.waitUntilStopped()
        }
    }

    @Test("the shutdown deadline force-closes requests that are still running")
    func shutdownDeadline() throws {
        try TestServer.run { server in
            let socket = try TestSocket(port: server.port)
            socket.send("GET /slow/5000 HTTP/1.1\r\nHost: a\r\n\r\n")
            waitBriefly(milliseconds: 100)
            server.server.beginGracefulShutdown(deadlineSeconds: 0.2)
            let (bytes, closed) = socket.receive()
            #expect(bytes.isEmpty)
            #expect(closed)
            server.server.waitUntilStopped()
        }
    }

    @Test("idle connections are closed after the idle timeout, HTTP/2 with a GOAWAY first")
    func idleTimeout() throws {
        try TestServer.run(configure: { $0.idleTimeoutSeconds = 1 }) { server in
            let http1 = try TestSocket(port: server.port)
            http1.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
            let stalled = try TestSocket(port: server.port)
            stalled.send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nhal")
            let stalledH2 = try H2TestClient(port: server.port)
            stalledH2.request(method: "POST", path: "/echo", headers: [("content-length", "100")], body: nil)
            stalledH2.run(seconds: 0.05) { false }
            let busy = try TestSocket(port: server.port)
            busy.send("GET /slow/2500 HTTP/1.1\r\nHost: a\r\n\r\n")
            let client = try H2TestClient(port: server.port)
            let stream = client.request(path: "/x")
            #expect(client.run { client.responses[stream]!.closed })
            #expect(client.run(seconds: 4) { client.peerClosed })
            #expect(client.goAwayLastStreamIDs == [stream])
            let (bytes, closed) = http1.receive()
            #expect(HTTP1Responses.parse(bytes).count == 1)
            #expect(closed)
            // A client stalled halfway through a request is closed too.
            #expect(stalled.receive() == ([], true))
            #expect(stalledH2.run(seconds: 4) { stalledH2.peerClosed })
            // A request whose handler is still working outlives the timeout and gets its answer.
            #expect(HTTP1Responses.parse(busy.receive { HTTP1Responses.parse($0).count == 1 }.bytes).first?.body == "slow 2500")
        }
    }

    @Test("every silent connection is closed within the handshake timeout and one pass of the timeout scan, though they all close together")
    func silentConnectionsClosedTogether() throws {
        try TestServer.run(configure: { $0.handshakeTimeoutSeconds = 1 }) { server in
            // Each tick looks at a tenth of the connections, and closing some rearranges the rest: none may be
            // skipped, nor the pass slowed down as the connections close.
            let started = MonotonicClock.nanoseconds()
            let sockets = try (0..<200).map { _ in try TestSocket(port: server.port) }
            for socket in sockets {
                #expect(socket.receive() == ([], true))
            }
            let elapsed = MonotonicClock.nanoseconds() - started
            #expect(elapsed >= 1_000_000_000)
            #expect(elapsed < 4_000_000_000, "the last silent connection closed after \(elapsed / 1_000_000) ms")
        }
    }

    @Test("a certificate that cannot be read fails init with an error naming the listener and the file")
    func badCertificate() throws {
        let listener = HTTPListener(
            host: "127.0.0.1", port: 0,
            tls: TLSConfiguration(certificatePath: "/nonexistent/cert.pem", privateKeyPath: "/nonexistent/key.pem"))
        let error = try #require(throws: HTTPServerError.self) {
            try HTTPServer(
                configuration: HTTPServerConfiguration(listeners: [listener]), handler: TestHandler(),
                logger: Logger(label: "test"))
        }
        #expect(error.code == .tlsSetupFailed)
        #expect(error.message.contains("127.0.0.1:0 (TLS)"))
        #expect(error.message.contains("/nonexistent/cert.pem"))
    }

    @Test("a port already in use fails start with an error naming the listener and the cause")
    func addressInUse() throws {
        // A plain listener without SO_REUSEPORT, so the server cannot share its port.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        listen(fd, 1)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let port = Int(UInt16(bigEndian: address.sin_port))
        let server = try HTTPServer(
            configuration: HTTPServerConfiguration(listeners: [HTTPListener(host: "127.0.0.1", port: port)]),
            handler: TestHandler(), logger: Logger(label: "test"))
        let error = try #require(throws: HTTPServerError.self) { try server.start() }
        #expect(error.code == .bindFailed)
        #expect(error.message.contains("127.0.0.1:\(port)"))
        #expect(error.message.contains("in use"))
        server.waitUntilStopped()
    }

    @Test("a host that is not a numeric address is rejected at init")
    func badHost() throws {
        let error = try #require(throws: HTTPServerError.self) {
            try HTTPServer(
                configuration: HTTPServerConfiguration(listeners: [HTTPListener(host: "localhost", port: 80)]),
                handler: TestHandler(), logger: Logger(label: "test"))
        }
        #expect(error.code == .invalidConfiguration)
        #expect(error.message.contains("localhost:80"))
    }
}
