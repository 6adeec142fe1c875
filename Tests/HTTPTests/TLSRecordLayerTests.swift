import COpenSSL
@_spi(Testing) @testable import HTTP
import Testing

/// attestd's TLS 1.3 record layer, against OpenSSL's client: every suite, key updates both ways, records larger
/// than one and sent slowly, and hostile records.
@Suite("TLS 1.3 record layer")
struct TLSRecordLayerTests {
    @Test(
        "a TLS 1.3 connection moves to the record layer after its handshake and is served, with each suite",
        arguments: ["TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"])
    func eachSuite(suite: String) throws {
        try withServer { server in
            let client = try TLSTestClient(port: server.tlsPort, ciphersuite: suite)
            #expect(client.version == TLS1_3_VERSION)
            #expect(try client.get("/first") == "/first")
            try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 5\r\n\r\nhello")
            #expect(try client.responses(1).map(\.body) == ["hello"])
            #expect(server.server.tlsHandshakes == 1)
            #expect(server.server.tlsRecordLayerConnections == 1)
        }
    }

    @Test("a TLS 1.2 connection stays with OpenSSL, and so does every connection with recordLayer openssl")
    func staysWithOpenSSL() throws {
        try withServer { server in
            let client = try TLSTestClient(port: server.tlsPort, maxVersion: TLS1_2_VERSION)
            #expect(client.version == TLS1_2_VERSION)
            #expect(try client.get("/twelve") == "/twelve")
            #expect(server.server.tlsHandshakes == 1)
            #expect(server.server.tlsRecordLayerConnections == 0)
        }
        try withServer(recordLayer: .openssl) { server in
            let client = try TLSTestClient(port: server.tlsPort)
            #expect(client.version == TLS1_3_VERSION)
            #expect(try client.get("/thirteen") == "/thirteen")
            #expect(server.server.tlsHandshakes == 1)
            #expect(server.server.tlsRecordLayerConnections == 0)
        }
    }

    @Test("the client's key updates are followed, and asked for, the server updates its keys once before its next record")
    func keyUpdates() throws {
        try withServer { server in
            let client = try TLSTestClient(port: server.tlsPort)
            try client.updateKeys(requestingPeerUpdate: false)
            #expect(try client.get("/after-update") == "/after-update")
            #expect(client.keyUpdatesReceived == 0)
            // Two requests while the server is silent: one KeyUpdate answers both (RFC 8446 §4.6.3).
            try client.updateKeys(requestingPeerUpdate: true)
            try client.updateKeys(requestingPeerUpdate: true)
            #expect(try client.get("/after-requests") == "/after-requests")
            #expect(client.keyUpdatesReceived == 1)
            #expect(try client.get("/again") == "/again")
            #expect(client.keyUpdatesReceived == 1)
            #expect(server.server.tlsRecordLayerConnections == 1)
        }
    }

    @Test("the server updates its own keys when one has protected its share of records")
    func keyLimit() throws {
        try withServer(recordsPerKey: 4) { server in
            let client = try TLSTestClient(port: server.tlsPort)
            for index in 0..<12 { #expect(try client.get("/\(index)") == "/\(index)") }
            // One record per response here: the 5th and the 9th responses each follow a KeyUpdate (a key's
            // sequence counts its KeyUpdate record too).
            #expect(client.keyUpdatesReceived >= 2)
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
            #expect(server.server.tlsRecordLayerConnections == 1)
        }
    }

    @Test(
        "a client that sends close_notify after its request still gets the answer, then close_notify",
        arguments: [TLSConfiguration.RecordLayer.attestd, .openssl])
    func halfClose(recordLayer: TLSConfiguration.RecordLayer) throws {
        try withServer(recordLayer: recordLayer) { server in
            let client = try TLSTestClient(port: server.tlsPort)
            try client.send("GET /slow/100 HTTP/1.1\r\nHost: test\r\n\r\n")
            client.shutdown()
            let answer = try #require(try client.responses(1).first)
            #expect(answer.body == "slow 100")
            #expect(answer.headers["connection"] == "close")
            #expect(client.readUntilEnd() == "close_notify")
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
        "a hostile record ends only its connection, with the alert RFC 8446 names",
        arguments: [
            // A forged application_data record: fails authentication.
            ([23, 3, 3, 0, 20] + [UInt8](repeating: 7, count: 20), "bad record mac"),
            // A handshake record in the clear after the handshake.
            ([22, 3, 3, 0, 4, 24, 0, 0, 0], "unexpected message"),
            // Longer than 2^14 + 256.
            ([23, 3, 3, 0x41, 0x01], "record overflow"),
        ] as [([UInt8], String)])
    func hostileRecord(record: [UInt8], alert: String) throws {
        try withServer { server in
            let victim = try TLSTestClient(port: server.tlsPort)
            #expect(try victim.get("/before") == "/before")
            let bystander = try TLSTestClient(port: server.tlsPort)
            victim.socket.send(record)
            #expect(victim.readUntilEnd().contains(alert))
            #expect(try bystander.get("/still-served") == "/still-served")
        }
    }

    @Test(
        "an authenticated record the record layer must refuse ends only its connection, with the alert RFC 8446 names",
        arguments: [
            ([], 24, 0, "unexpected message"),  // heartbeat, not a TLS 1.3 content type
            ([], 0, 40, "unexpected message"),  // all zeros: no content type
            ([4, 0, 0, 4, 0, 0, 0, 0], 22, 0, "unexpected message"),  // a NewSessionTicket from the client
            ([24, 0, 0, 1], 22, 0, "unexpected message"),  // a KeyUpdate cut short
            ([24, 0, 0, 1, 0, 0], 22, 0, "unexpected message"),  // a KeyUpdate with more after it
            ([24, 0, 0, 1, 2], 22, 0, "illegal parameter"),  // request_update neither 0 nor 1
            ([2, 10, 0], 21, 0, "decode error"),  // an alert of three bytes
            ([], 21, 0, "decode error"),  // an empty alert
            ([UInt8](repeating: 0x41, count: 16_385), 23, 0, "record overflow"),  // plaintext over 2^14
        ] as [([UInt8], UInt8, Int, String)])
    func authenticatedHostileRecord(content: [UInt8], contentType: UInt8, padding: Int, alert: String) throws {
        try withServer { server in
            let victim = try TLSTestClient(port: server.tlsPort)
            let bystander = try TLSTestClient(port: server.tlsPort)
            // A valid record first, answered, then the bad one with the next sequence number.
            victim.socket.send(victim.sealedRecord(content: Array("GET /sealed HTTP/1.1\r\nHost: t\r\n\r\n".utf8), contentType: 23))
            #expect(try victim.responses(1).map(\.body) == ["/sealed"])
            victim.socket.send(victim.sealedRecord(content: content, contentType: contentType, padding: padding))
            let ending = victim.readUntilEnd()
            #expect(ending.contains(alert), "\(ending)")
            #expect(try bystander.get("/still-served") == "/still-served")
        }
    }

    @Test("padding, empty records and a peer's user_canceled warning are read past")
    func paddingAndEmptyRecords() throws {
        try withServer { server in
            let client = try TLSTestClient(port: server.tlsPort)
            var bytes = client.sealedRecord(content: [], contentType: 23)
            bytes += client.sealedRecord(content: Array("GET /pad".utf8), contentType: 23, padding: 300)
            bytes += client.sealedRecord(content: [1, 90], contentType: 21)  // user_canceled
            bytes += client.sealedRecord(content: Array("ded HTTP/1.1\r\nHost: t\r\n\r\n".utf8), contentType: 23)
            client.socket.send(bytes)
            #expect(try client.responses(1).map(\.body) == ["/padded"])
            client.socket.send(client.sealedRecord(content: [1, 0], contentType: 21))  // close_notify
            #expect(client.readUntilEnd() == "close_notify")
        }
    }

    @Test("the fuzzer's peer stays in step with the record layer through key updates; a forged record ends it", arguments: 0..<3)
    func fuzzPeer(suite: Int) {
        let peer = TLSRecordsPeer(suite: suite, recordsPerKey: 2)
        peer.sendSealed(content: Array("hello".utf8), contentType: 23, padding: 7)
        #expect(peer.serverReads() == 5)
        peer.sendSealed(content: [24, 0, 0, 1, 1], contentType: 22, padding: 0)
        peer.sendSealed(content: Array("after the update".utf8), contentType: 23, padding: 0)
        #expect(peer.serverReads() == 16)
        peer.serverWrites(300_000, drain: false)
        peer.serverWrites(10, drain: true)
        #expect(!peer.isClosed)
        peer.sendRaw([23, 3, 3, 0, 20] + [UInt8](repeating: 1, count: 20))
        peer.serverReads()
        #expect(peer.isClosed)
    }

    private func withServer(
        recordLayer: TLSConfiguration.RecordLayer = .attestd, recordsPerKey: UInt64? = nil, _ body: (TestServer) throws -> Void
    ) throws {
        let files = try Command.selfSignedCertificate()
        var tls = TLSConfiguration(certificatePath: files.certificate, privateKeyPath: files.key, recordLayer: recordLayer)
        if let recordsPerKey { tls.recordsPerKey = recordsPerKey }
        try TestServer.run(tls: tls, body)
    }
}
