import Observability
import Testing
import TLS

/// The TLS module's server streams and its one client, face to face over a socket pair.
@Suite("TLS handshakes between the module's server and client")
struct TLSHandshakeTests {
    let files: Certificates
    let server: TLSServerContext

    init() throws {
        files = try Certificates()
        server = try TLSServerContext(
            TLSConfiguration(certificatePath: files.certificate, privateKeyPath: files.key), listenerName: "test",
            logger: Logger(label: "tls-test"))
    }

    @Test("a client that trusts the server's certificate completes the handshake for its address or DNS name, and ALPN picks h2")
    func trusted() throws {
        for name in ["127.0.0.1", "localhost"] {
            let pair = SocketPair()
            let context = try TLSClientContext(TLSClientConfiguration(caFilePath: files.certificate, applicationProtocols: ["h2"]))
            let client = try TLSClientConnection(context: context, fd: pair.clientFD, serverName: name)
            let stream = try #require(TLSServerStream(context: server, fd: pair.serverFD))
            #expect(pair.handshake(client, stream) == .bytes(0))
            #expect(client.negotiatedProtocol == "h2")
            #expect(stream.negotiatedProtocol == "h2")
            #expect(stream.isHandshakeDone)
        }
        #expect(server.handshakeCounts.completed == 2)
    }

    @Test("bytes written on one side are read on the other, both ways, and close_notify is a clean end")
    func transfer() throws {
        let pair = SocketPair()
        let context = try TLSClientContext(TLSClientConfiguration(verifiesServer: false))
        let client = try TLSClientConnection(context: context, fd: pair.clientFD, serverName: "127.0.0.1")
        let stream = try #require(TLSServerStream(context: server, fd: pair.serverFD))
        pair.handshake(client, stream)
        let request = Array("hello server".utf8)
        #expect(request.withUnsafeBytes { client.write($0) } == .bytes(request.count))
        var buffer = [UInt8](repeating: 0, count: 256)
        #expect(buffer.withUnsafeMutableBytes { stream.read(into: $0) } == .bytes(request.count))
        #expect(Array(buffer.prefix(request.count)) == request)
        let answer = Array("hello client".utf8)
        #expect(answer.withUnsafeBytes { stream.write($0) } == .bytes(answer.count))
        #expect(buffer.withUnsafeMutableBytes { client.read(into: $0) } == .bytes(answer.count))
        #expect(Array(buffer.prefix(answer.count)) == answer)
        #expect(buffer.withUnsafeMutableBytes { client.read(into: $0) } == .wantRead)
        stream.shutdown()
        #expect(buffer.withUnsafeMutableBytes { client.read(into: $0) } == .closed)
    }

    @Test("a client refuses a server its CAs did not sign, or one that does not carry the name it expects")
    func refused() throws {
        let system = try TLSClientContext(TLSClientConfiguration())
        let trusting = try TLSClientContext(TLSClientConfiguration(caFilePath: files.certificate))
        for (context, name, reason) in [(system, "127.0.0.1", "self"), (trusting, "example.com", "mismatch")] {
            let pair = SocketPair()
            let client = try TLSClientConnection(context: context, fd: pair.clientFD, serverName: name)
            let stream = try #require(TLSServerStream(context: server, fd: pair.serverFD))
            let step = pair.handshake(client, stream)
            guard case .failed(let error) = step else {
                Issue.record("the handshake did not fail: \(step)")
                continue
            }
            #expect(error.code == .certificateRefused)
            #expect(error.message.contains(reason), "\(error.message)")
        }
    }

    @Test("contexts refuse a key that does not match the certificate, and a client certificate without its key")
    func badFiles() throws {
        #expect(throws: TLSError.self) {
            try TLSServerContext(
                TLSConfiguration(certificatePath: files.certificate, privateKeyPath: files.otherKey), listenerName: "bad",
                logger: Logger(label: "tls-test"))
        }
        let halfPair = #expect(throws: TLSError.self) {
            try TLSClientContext(TLSClientConfiguration(certificatePath: files.certificate))
        }
        #expect(halfPair?.code == .setupFailed)
        #expect(throws: TLSError.self) { try TLSClientContext(TLSClientConfiguration(caFilePath: "/nonexistent/ca.pem")) }
    }
}
