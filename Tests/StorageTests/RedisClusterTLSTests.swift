import Foundation
@testable import Storage
import Testing

/// TLS on a real Redis Cluster that serves TLS only (no plain port; the cluster bus and replication over TLS too):
/// the ports CLUSTER SLOTS and redirections name are the TLS ports, every connection verifies the node's
/// certificate, a store that does not trust the cluster's CA is refused with an error saying so, and a cluster that
/// requires client certificates (mutual TLS) gets the configured one on every connection.
@Suite("Redis Cluster store over TLS", .serialized)
struct RedisClusterTLSTests {
    var expiresAt: Int64 { Int64(Date().timeIntervalSince1970) + 300 }

    /// With `requireClientCertificates`, every node requires a certificate from the CA of its clients (the nodes
    /// themselves present their server certificate to one another on the bus, redis-cli the client certificate).
    static func servers(_ certificates: TestCertificates, requireClientCertificates: Bool = false) throws -> RedisClusterServers {
        try RedisClusterServers(primaries: 3, replicasPerPrimary: 0, tls: RedisServer.TLS(
            certificate: certificates.server.certificate, key: certificates.server.key, caFile: certificates.caFile,
            requireClientCertificates: requireClientCertificates,
            client: requireClientCertificates ? (certificates.client.certificate, certificates.client.key) : nil))
    }

    static func store(_ servers: RedisClusterServers, caFile: String?) -> RedisClusterStateStore {
        store(servers, tls: RedisTLSConfiguration(caFilePath: caFile))
    }

    static func store(_ servers: RedisClusterServers, tls: RedisTLSConfiguration) -> RedisClusterStateStore {
        RedisClusterStateStore(RedisClusterConfiguration(
            seeds: servers.seeds,
            connection: RedisConfiguration(reconnectBackoffMilliseconds: 1, maxReconnectBackoffMilliseconds: 1, tls: tls),
            replicasToAcknowledge: 0))
    }

    @Test("consumes each challenge once and refuses its replay, on every primary, over TLS")
    func trusted() throws {
        let certificates = try TestCertificates()
        let servers = try Self.servers(certificates)
        let store = Self.store(servers, caFile: certificates.caFile)
        let nonces = try servers.onEveryPrimary { Array("attestd:challenge:".utf8) + RedisClusterAuthTests.nonce($0) }
        for value in nonces { #expect(try store.consumeChallenge(RedisClusterAuthTests.nonce(value), expiresAt: expiresAt)) }
        for value in nonces {
            #expect(try !store.consumeChallenge(RedisClusterAuthTests.nonce(value), expiresAt: expiresAt), "replay \(value)")
        }
        let keys = try servers.onEveryPrimary { store.recordKey(RedisClusterAuthTests.keyID($0)) }
        for value in keys {
            let id = RedisClusterAuthTests.keyID(value)
            try store.registerKey(RedisClusterTests.record(id))
            #expect(try store.advanceCounter(keyID: id, to: 2, now: 1_001) == .advanced)
            #expect(try store.advanceCounter(keyID: id, to: 2, now: 1_002) == .notIncreasing(stored: 2))
        }
        try store.ping()
        // The slot map names each primary by its TLS port, the only one it listens on.
        let primaries = try store.cluster.eachPrimary { _ throws(RedisFailure) in () }.map(\.0.port)
        #expect(Set(primaries) == Set(servers.nodes.map(\.port)))
    }

    @Test("fails the handshake, with an error naming the certificate, when the cluster's CA is not trusted")
    func untrusted() throws {
        let certificates = try TestCertificates()
        let servers = try Self.servers(certificates)
        let store = Self.store(servers, caFile: certificates.otherCAFile)
        let nonce = RedisClusterAuthTests.nonce(1)
        let error = #expect(throws: StoreError.self) { try store.consumeChallenge(nonce, expiresAt: expiresAt) }
        #expect(error?.description.contains("certificate") == true, "\(String(describing: error))")
        let pinging = #expect(throws: StoreError.self) { try store.ping() }
        #expect(pinging?.description.contains("certificate") == true, "\(String(describing: pinging))")
        for node in servers.nodes { #expect(try node.cli(["DBSIZE"]) == "0", "node \(node.port)") }
        #expect(try Self.store(servers, caFile: certificates.caFile).consumeChallenge(nonce, expiresAt: expiresAt))
    }

    @Test("presents the client certificate to every primary of a cluster that requires one, and is refused without it")
    func mutualTLS() throws {
        let certificates = try TestCertificates()
        let servers = try Self.servers(certificates, requireClientCertificates: true)
        let anonymous = Self.store(servers, caFile: certificates.caFile)
        let nonces = try servers.onEveryPrimary { Array("attestd:challenge:".utf8) + RedisClusterAuthTests.nonce($0) }
        let error = #expect(throws: StoreError.self) {
            try anonymous.consumeChallenge(RedisClusterAuthTests.nonce(nonces[0]), expiresAt: expiresAt)
        }
        // Either the server's alert ("certificate required") or, when its reset overtook the alert, our guess.
        let message = error?.description ?? ""
        #expect(message.contains("certificate required") || message.contains("client certificate"), "\(message)")
        for node in servers.nodes { #expect(try node.cli(["DBSIZE"]) == "0", "node \(node.port)") }
        let authenticated = Self.store(servers, tls: RedisTLSConfiguration(
            caFilePath: certificates.caFile, certificatePath: certificates.client.certificate,
            privateKeyPath: certificates.client.key))
        for value in nonces { #expect(try authenticated.consumeChallenge(RedisClusterAuthTests.nonce(value), expiresAt: expiresAt)) }
        for value in nonces {
            #expect(try !authenticated.consumeChallenge(RedisClusterAuthTests.nonce(value), expiresAt: expiresAt), "replay \(value)")
        }
        try authenticated.ping()
        for node in servers.nodes { #expect(try node.cli(["DBSIZE"]) == "1", "node \(node.port)") }
    }

    @Test("verifies the node an ASK or MOVED names, on TLS connections opened after the redirection")
    func redirections() throws {
        let certificates = try TestCertificates()
        let servers = try Self.servers(certificates)
        try RedisClusterRedirections.check(Self.store(servers, caFile: certificates.caFile), on: servers)
    }
}
