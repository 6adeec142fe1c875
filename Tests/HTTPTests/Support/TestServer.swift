import HTTP
import Observability
import Testing
import TLS

/// A server on 127.0.0.1 with a kernel-chosen port, two loops and a ``TestHandler``; stopped when the body returns.
struct TestServer {
    let server: HTTPServer
    let handler: TestHandler
    var port: Int { server.boundAddresses[0].port }
    /// The TLS listener's port, when one was asked for.
    var tlsPort: Int { server.boundAddresses[1].port }

    static func run<R>(
        tls: TLSConfiguration? = nil, configure: (inout HTTPServerConfiguration) -> Void = { _ in },
        _ body: (TestServer) throws -> R
    ) throws -> R {
        var listeners = [HTTPListener(host: "127.0.0.1", port: 0)]
        if let tls { listeners.append(HTTPListener(host: "127.0.0.1", port: 0, tls: tls)) }
        var configuration = HTTPServerConfiguration(listeners: listeners, eventLoopCount: 2)
        configure(&configuration)
        let handler = TestHandler()
        let server = try HTTPServer(configuration: configuration, handler: handler, logger: Logger(label: "test"))
        try server.start()
        let running = TestServer(server: server, handler: handler)
        defer {
            server.beginGracefulShutdown(deadlineSeconds: 1)
            server.waitUntilStopped()
            // Every connection and stream a test opened must have been accounted for when the loops exit.
            #expect(server.openConnections == 0)
            #expect(server.openStreams == 0)
        }
        return try body(running)
    }
}
