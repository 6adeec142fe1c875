import Foundation
import Storage
import Testing

/// The Redis store over TLS, against a real redis-server serving TLS only, with certificates made for the test.
/// (The state-store semantics over TLS are in StateStoreSemanticsTests, as the `redisTLS` kind.)
@Suite("Redis state store over TLS")
struct RedisTLSTests {
    var expiresAt: Int64 { Int64(Date().timeIntervalSince1970) + 300 }

    func server(_ certificates: TestCertificates, _ pair: TestCertificates.Pair, requireClientCertificates: Bool = false,
                persistent: Bool = false) throws -> RedisServer {
        try RedisServer(persistent: persistent, tls: RedisServer.TLS(
            certificate: pair.certificate, key: pair.key, caFile: certificates.caFile,
            requireClientCertificates: requireClientCertificates,
            client: (certificates.client.certificate, certificates.client.key)))
    }

    func store(_ server: RedisServer, _ tls: RedisTLSConfiguration, host: String = "127.0.0.1") -> RedisStateStore {
        RedisStateStore(RedisConfiguration(host: host, port: server.port, reconnectBackoffMilliseconds: 1,
                                           maxReconnectBackoffMilliseconds: 1, tls: tls))
    }

    @Test("refuses a server whose certificate the configured CA did not sign")
    func untrustedServer() throws {
        let certificates = try TestCertificates()
        let server = try server(certificates, certificates.otherServer)
        let refused = store(server, RedisTLSConfiguration(caFilePath: certificates.caFile))
        let error = #expect(throws: StoreError.self) { try refused.consumeChallenge([1], expiresAt: expiresAt) }
        #expect(error?.description.contains("certificate") == true, "\(String(describing: error))")
        // The same server is accepted by a client that trusts its CA: the refusal was about the signer.
        let trusting = store(server, RedisTLSConfiguration(caFilePath: certificates.otherCAFile))
        #expect(try trusting.consumeChallenge([1], expiresAt: expiresAt))
    }

    @Test("refuses a server certificate that does not name the expected server, by DNS name or IP address")
    func wrongServerName() throws {
        let certificates = try TestCertificates()
        let server = try server(certificates, certificates.server)
        let wrongName = store(server, RedisTLSConfiguration(caFilePath: certificates.caFile, serverName: "redis.example.com"))
        let nameError = #expect(throws: StoreError.self) { try wrongName.ping() }
        #expect(nameError?.description.contains("hostname mismatch") == true, "\(String(describing: nameError))")
        let wrongAddress = store(server, RedisTLSConfiguration(caFilePath: certificates.caFile, serverName: "127.0.0.2"))
        let addressError = #expect(throws: StoreError.self) { try wrongAddress.ping() }
        #expect(addressError?.description.contains("IP address mismatch") == true, "\(String(describing: addressError))")
        // The names the certificate carries: the DNS name given as serverName, and the host (an IP) by default.
        let named = store(server, RedisTLSConfiguration(caFilePath: certificates.caFile, serverName: "localhost"))
        #expect(try named.consumeChallenge([1], expiresAt: expiresAt))
        let byHost = store(server, RedisTLSConfiguration(caFilePath: certificates.caFile))
        #expect(try !byHost.consumeChallenge([1], expiresAt: expiresAt))
        let byHostName = store(server, RedisTLSConfiguration(caFilePath: certificates.caFile), host: "localhost")
        #expect(try !byHostName.consumeChallenge([1], expiresAt: expiresAt))
    }

    @Test("verifies against the system's trust store when no CA file is configured, which refuses a private CA")
    func systemTrustStore() throws {
        let certificates = try TestCertificates()
        let server = try server(certificates, certificates.server)
        let store = store(server, RedisTLSConfiguration())
        #expect(throws: StoreError.self) { try store.ping() }
    }

    @Test("presents a client certificate when the server requires one, and is refused without it")
    func mutualTLS() throws {
        let certificates = try TestCertificates()
        let server = try server(certificates, certificates.server, requireClientCertificates: true)
        let anonymous = store(server, RedisTLSConfiguration(caFilePath: certificates.caFile))
        let error = #expect(throws: StoreError.self) { try anonymous.consumeChallenge([1], expiresAt: expiresAt) }
        // Either the server's alert ("certificate required") or, when its reset overtook the alert, our guess.
        let message = error?.description ?? ""
        #expect(message.contains("certificate required") || message.contains("client certificate"), "\(message)")
        let authenticated = store(server, RedisTLSConfiguration(
            caFilePath: certificates.caFile, certificatePath: certificates.client.certificate,
            privateKeyPath: certificates.client.key))
        #expect(try authenticated.consumeChallenge([1], expiresAt: expiresAt))
        #expect(try !authenticated.consumeChallenge([1], expiresAt: expiresAt))
        #expect(try server.cli(["EXISTS", "attestd:challenge:\u{1}"]) == "1")
    }

    @Test("gives StoreError for a client certificate without its key, or a CA file that does not exist")
    func badFiles() throws {
        let certificates = try TestCertificates()
        let server = try server(certificates, certificates.server)
        let halfPair = store(server, RedisTLSConfiguration(caFilePath: certificates.caFile,
                                                           certificatePath: certificates.client.certificate))
        #expect(throws: StoreError.self) { try halfPair.ping() }
        let missingCA = store(server, RedisTLSConfiguration(caFilePath: certificates.directory.file("absent.pem")))
        #expect(throws: StoreError.self) { try missingCA.ping() }
    }

    @Test("gives StoreError, not a hang, when the server speaks plain TCP")
    func plainServer() throws {
        let certificates = try TestCertificates()
        let server = try RedisServer()
        let store = RedisStateStore(RedisConfiguration(port: server.port, connectTimeoutMilliseconds: 500,
                                                       tls: RedisTLSConfiguration(caFilePath: certificates.caFile)))
        #expect(throws: StoreError.self) { try store.ping() }
    }

    @Test("gives StoreError when the TLS handshake does not finish within the connect timeout")
    func silentServer() throws {
        let certificates = try TestCertificates()
        // Connections complete in the kernel's backlog, and then nothing is ever said.
        let listener = try SilentListener()
        let store = RedisStateStore(RedisConfiguration(port: listener.port, connectTimeoutMilliseconds: 200,
                                                       tls: RedisTLSConfiguration(caFilePath: certificates.caFile)))
        let error = #expect(throws: StoreError.self) { try store.ping() }
        #expect(error?.description.contains("timed out in the TLS handshake") == true, "\(String(describing: error))")
    }

    @Test("answers the first call after a restart it did not see, on a new TLS connection, state intact")
    func restart() throws {
        let certificates = try TestCertificates()
        let server = try server(certificates, certificates.server, persistent: true)
        let store = store(server, RedisTLSConfiguration(caFilePath: certificates.caFile))
        let expiresAt = self.expiresAt
        #expect(try store.consumeChallenge([1], expiresAt: expiresAt))
        server.stop()
        #expect(throws: StoreError.self) { try store.consumeChallenge([2], expiresAt: expiresAt) }
        try server.start()
        var answered: Bool?
        for _ in 0..<100 where answered == nil {
            answered = try? store.consumeChallenge([1], expiresAt: expiresAt)
            if answered == nil { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(answered == false)
        #expect(try store.consumeChallenge([2], expiresAt: expiresAt))
        // A pooled connection that died with the server is replaced without failing the call.
        server.stop()
        try server.start()
        #expect(try !store.consumeChallenge([2], expiresAt: expiresAt))
    }

    @Test("gives StoreError when Redis does not answer within the command timeout over TLS, then works again")
    func commandTimeout() throws {
        let certificates = try TestCertificates()
        let server = try server(certificates, certificates.server)
        let store = RedisStateStore(RedisConfiguration(
            port: server.port, commandTimeoutMilliseconds: 200, reconnectBackoffMilliseconds: 20,
            maxReconnectBackoffMilliseconds: 100, tls: RedisTLSConfiguration(caFilePath: certificates.caFile)))
        #expect(try store.consumeChallenge([1], expiresAt: expiresAt))
        #expect(try server.cli(["CLIENT", "PAUSE", "1500", "ALL"]) == "OK")
        #expect(throws: StoreError.self) { try store.consumeChallenge([2], expiresAt: expiresAt) }
        var recovered = false
        for _ in 0..<200 where !recovered {
            recovered = (try? store.ping()) != nil
            if !recovered { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(recovered)
        #expect(try !store.consumeChallenge([1], expiresAt: expiresAt))
    }
}
