import Glibc
@testable import HTTP
import TLS
import Testing

/// OpenSSL's record layer on every TLS connection, against the TLS module's client (OpenSSL's too): every suite, key updates both ways,
/// records larger than one and sent slowly, a negotiated maximum fragment length, hostile records, truncation.
@Suite("TLS records through OpenSSL")
struct TLSRecordTests {
    @Test(
        "a TLS 1.3 connection is served with each suite",
        arguments: ["TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"])
    func eachSuite(suite: String) throws {
        try withServer { server in
            let client = try TLSTestClient(port: server.tlsPort, ciphersuite: suite)
            #expect(client.version == .tls13)
            #expect(try client.get("/first") == "/first")
            try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 5\r\n\r\nhello")
            #expect(try client.responses(1).map(\.body) == ["hello"])
            #expect(server.server.tlsHandshakes == 1)
        }
    }

    @Test("a TLS 1.2 connection is served")
    func tls12() throws {
        try withServer { server in
            let client = try TLSTestClient(port: server.tlsPort, maxVersion: .tls12)
            #expect(client.version == .tls12)
            #expect(try client.get("/twelve") == "/twelve")
            #expect(server.server.tlsHandshakes == 1)
        }
    }

    @Test("the client's key updates are followed, and when it asks, the server updates its keys too")
    func keyUpdates() throws {
        try withServer { server in
            let client = try TLSTestClient(port: server.tlsPort)
            try client.updateKeys(requestingPeerUpdate: false)
            #expect(try client.get("/after-update") == "/after-update")
            #expect(client.keyUpdatesReceived == 0)
            try client.updateKeys(requestingPeerUpdate: true)
            #expect(try client.get("/after-request") == "/after-request")
            #expect(client.keyUpdatesReceived == 1)
            #expect(try client.get("/again") == "/again")
        }
    }

    @Test("a response of many records to a slow reader, and a request body of many records, arrive whole")
    func manyRecords() throws {
        try withServer { server in
            let client = try TLSTestClient(port: server.tlsPort, receiveBufferBytes: 4096)
            try client.send("GET /big/300000 HTTP/1.1\r\nHost: test\r\n\r\n")
            let big = try client.responses(1)
            #expect(big.first?.body.utf8.count == 300_000)
            #expect(big.first?.body.utf8.allSatisfy { $0 == 0x61 } == true)
            let body = String((0..<60_000).map { Character(UnicodeScalar(UInt8(0x41 + $0 % 26))) })
            try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body)
            #expect(try client.responses(1).first?.body == body)
        }
    }

    @Test(
        "a client that negotiated a maximum fragment length gets records within it",
        arguments: [(UInt8(1), 512), (UInt8(2), 1024)] as [(UInt8, Int)])
    func maxFragmentLength(mode: UInt8, limit: Int) throws {
        try withServer { server in
            let client = try TLSTestClient(port: server.tlsPort, maxFragmentLength: mode)
            try client.send("GET /big/40000 HTTP/1.1\r\nHost: test\r\n\r\n")
            #expect(try client.responses(1).first?.body.utf8.count == 40_000)
            // A TLS 1.3 record: the fragment, its content type, AES-GCM's or ChaCha20-Poly1305's 16-byte tag.
            #expect(client.largestRecordReceived > 0)
            #expect(client.largestRecordReceived <= limit + 1 + 16)
        }
    }

    @Test("a client that sends close_notify after its request still gets the answer, then close_notify")
    func halfClose() throws {
        try withServer { server in
            let client = try TLSTestClient(port: server.tlsPort)
            try client.send("GET /slow/100 HTTP/1.1\r\nHost: test\r\n\r\n")
            client.shutdown()
            let answer = try #require(try client.responses(1).first)
            #expect(answer.body == "slow 100")
            #expect(answer.headers["connection"] == "close")
            #expect(client.readUntilEnd() == "close_notify")
        }
    }

    @Test("a stream cut short without close_notify is not a clean end: the connection fails, unanswered")
    func truncation() throws {
        try withServer { server in
            let client = try TLSTestClient(port: server.tlsPort)
            try client.send("GET /slow/100 HTTP/1.1\r\nHost: test\r\n\r\n")
            Glibc.shutdown(client.socket.fd, Int32(SHUT_WR))
            let ending = client.readUntilEnd()
            #expect(ending != "close_notify", "\(ending)")
            #expect(server.handler.received.count <= 1)
        }
    }

    @Test("close_notify from the client is answered with close_notify")
    func closeNotify() throws {
        try withServer { server in
            let client = try TLSTestClient(port: server.tlsPort)
            #expect(try client.get("/bye") == "/bye")
            client.shutdown()
            #expect(client.readUntilEnd() == "close_notify")
        }
    }

    @Test(
        "a hostile record ends only its connection, with OpenSSL's alert",
        arguments: [
            // A forged application_data record: fails authentication.
            ([23, 3, 3, 0, 20] + [UInt8](repeating: 7, count: 20), "bad record mac"),
            // Longer than 2^14 + 256.
            ([23, 3, 3, 0x41, 0x01], "record overflow"),
        ] as [([UInt8], String)])
    func hostileRecord(record: [UInt8], alert: String) throws {
        try withServer { server in
            let victim = try TLSTestClient(port: server.tlsPort)
            #expect(try victim.get("/before") == "/before")
            let bystander = try TLSTestClient(port: server.tlsPort)
            victim.socket.send(record)
            let ending = victim.readUntilEnd()
            #expect(ending.contains(alert), "\(ending)")
            #expect(try bystander.get("/still-served") == "/still-served")
        }
    }

    @Test("kernel TLS is counted only where the kernel offers it")
    func kernelTLS() throws {
        let kernel = KernelTLS.probe()
        try withServer { server in
            let client = try TLSTestClient(port: server.tlsPort)
            #expect(try client.get("/k") == "/k")
            let counted = server.server.tlsKernelConnections
            if !kernel.offered {
                #expect(counted.send == 0 && counted.receive == 0, "\(kernel.detail)")
            }
            #expect(counted.send <= 1 && counted.receive <= 1)
        }
    }

    private func withServer(_ body: (TestServer) throws -> Void) throws {
        let files = try Command.selfSignedCertificate()
        try TestServer.run(tls: TLSConfiguration(certificatePath: files.certificate, privateKeyPath: files.key), body)
    }
}
