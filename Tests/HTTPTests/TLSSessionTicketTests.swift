@testable import HTTP
import Testing
import TLS

/// Stateless session resumption: OpenSSL's tickets under `TLSSessionTicketKey`s, shared by nodes and rotated.
@Suite("TLS session tickets")
struct TLSSessionTicketTests {
    static let first = TLSSessionTicketKey(id: 1, secret: [UInt8](repeating: 0x11, count: 32))!
    static let second = TLSSessionTicketKey(id: 2, secret: [UInt8](repeating: 0x22, count: 32))!

    @Test("a reconnecting client resumes its session, over TLS 1.3 and TLS 1.2", arguments: [TLSVersion.tls13, .tls12])
    func resumes(version: TLSVersion) throws {
        try withServer(keys: [Self.first]) { server in
            let session = try session(from: server, maxVersion: version)
            let again = try TLSTestClient(port: server.tlsPort, maxVersion: version, resuming: session)
            #expect(again.resumed)
            #expect(try again.get("/resumed") == "/resumed")
            #expect(server.server.tlsHandshakes == 2)
            #expect(server.server.tlsResumedHandshakes == 1)
        }
    }

    @Test("a listener with no configured key resumes its own tickets")
    func randomKey() throws {
        try withServer(keys: []) { server in
            let again = try TLSTestClient(port: server.tlsPort, resuming: try session(from: server))
            #expect(again.resumed)
        }
    }

    @Test("two servers holding the same ticket key resume each other's sessions; one with another key does not")
    func sharedKey() throws {
        try withServer(keys: [Self.first]) { one in
            let session = try session(from: one)
            try withServer(keys: [Self.first]) { two in
                let client = try TLSTestClient(port: two.tlsPort, resuming: session)
                #expect(client.resumed)
                #expect(try client.get("/other-node") == "/other-node")
            }
            try withServer(keys: [Self.second]) { stranger in
                let client = try TLSTestClient(port: stranger.tlsPort, resuming: session)
                #expect(!client.resumed)
                #expect(try client.get("/full-handshake") == "/full-handshake")
            }
        }
    }

    @Test("after a rotation, tickets of the older key still resume, and the client gets tickets of the newer one")
    func rotation() throws {
        let old = try withServer(keys: [Self.first]) { try session(from: $0) }
        try withServer(keys: [Self.first, Self.second]) { rotated in
            let client = try TLSTestClient(port: rotated.tlsPort, resuming: old)
            #expect(client.resumed)
            #expect(try client.get("/rotated") == "/rotated")
            let renewed = try #require(client.session())
            try withServer(keys: [Self.second]) { newest throws in
                let renewing = try TLSTestClient(port: newest.tlsPort, resuming: renewed)
                let stale = try TLSTestClient(port: newest.tlsPort, resuming: old)
                #expect(renewing.resumed)
                #expect(!stale.resumed)
            }
        }
    }

    /// A session with a ticket: one request answered (a TLS 1.3 ticket arrives after the handshake).
    private func session(from server: TestServer, maxVersion: TLSVersion = .tls13) throws -> TLSSession {
        let client = try TLSTestClient(port: server.tlsPort, maxVersion: maxVersion)
        #expect(!client.resumed)
        #expect(try client.get("/first") == "/first")
        return try #require(client.session())
    }

    private func withServer<R>(keys: [TLSSessionTicketKey], _ body: (TestServer) throws -> R) throws -> R {
        let files = try Command.selfSignedCertificate()
        return try TestServer.run(
            tls: TLSConfiguration(certificatePath: files.certificate, privateKeyPath: files.key, sessionTicketKeys: keys), body)
    }
}
