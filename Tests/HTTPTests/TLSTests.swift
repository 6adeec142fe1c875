import HTTP
import Testing
import TLS

@Suite("TLS with ALPN")
struct TLSTests {
    @Test("negotiates h2 by ALPN and serves the request over HTTP/2")
    func alpnH2() throws {
        let files = try Command.selfSignedCertificate()
        let tls = TLSConfiguration(certificatePath: files.certificate, privateKeyPath: files.key)
        try TestServer.run(tls: tls) { server in
            let result = try Command.run("/usr/bin/curl", [
                "-sk", "--http2", "-w", "\n%{http_version}", "https://127.0.0.1:\(server.tlsPort)/over-tls",
            ])
            #expect(result.output == "/over-tls\n2")
            let request = try #require(server.handler.received.first)
            #expect(request.isTLS)
            #expect(request.version == .http2)
        }
    }

    @Test("negotiates http/1.1 by ALPN and keeps the connection alive")
    func alpnHTTP1() throws {
        let files = try Command.selfSignedCertificate()
        let tls = TLSConfiguration(certificatePath: files.certificate, privateKeyPath: files.key)
        try TestServer.run(tls: tls) { server in
            let result = try Command.run("/usr/bin/curl", [
                "-sk", "--http1.1", "-w", " %{http_version} %{num_connects}\n",
                "https://127.0.0.1:\(server.tlsPort)/a", "https://127.0.0.1:\(server.tlsPort)/b",
                "-d", "body",
            ])
            #expect(result.output == "/a 1.1 1\n/b 1.1 0\n")
            #expect(server.handler.received.map(\.version) == [.http1_1, .http1_1])
            #expect(server.handler.received.allSatisfy { $0.isTLS })
        }
    }

    @Test("accepts TLS 1.2 as well as 1.3")
    func tls12() throws {
        let files = try Command.selfSignedCertificate()
        let tls = TLSConfiguration(certificatePath: files.certificate, privateKeyPath: files.key)
        try TestServer.run(tls: tls) { server in
            let result = try Command.run("/usr/bin/curl", [
                "-sk", "--http2", "--tlsv1.2", "--tls-max", "1.2", "-w", " %{http_version}",
                "https://127.0.0.1:\(server.tlsPort)/twelve",
            ])
            #expect(result.output == "/twelve 2")
        }
    }

    @Test("the cleartext listener beside a TLS one still serves h2c")
    func cleartextBesideTLS() throws {
        let files = try Command.selfSignedCertificate()
        let tls = TLSConfiguration(certificatePath: files.certificate, privateKeyPath: files.key)
        try TestServer.run(tls: tls) { server in
            let result = try Command.run("/usr/bin/curl", [
                "-s", "--http2-prior-knowledge", "-w", " %{http_version}", "http://127.0.0.1:\(server.port)/plain",
            ])
            #expect(result.output == "/plain 2")
        }
    }
}
