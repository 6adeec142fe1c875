import Glibc
@testable import HTTP
import TLS

/// A blocking TLS client over a ``TestSocket``, for the TLS tests: the TLS module's client (the one Redis and the
/// bench use) with HTTP/1.1 requests, key updates of its own, a count of the KeyUpdates the server sends, the largest
/// record the server sent, and session resumption.
final class TLSTestClient {
    let socket: TestSocket
    private let context: TLSClientContext
    private let connection: TLSClientConnection
    private var received: [UInt8] = []

    /// Connects and completes the handshake. `ciphersuite` limits TLS 1.3 to one suite; `maxVersion` `.tls12` makes it
    /// a TLS 1.2 client; `resuming` offers a session from an earlier connection; `maxFragmentLength` asks for records
    /// of at most 2^(8+n) bytes (RFC 6066 §4, 1...4). The server's self-signed certificate is not checked.
    init(port: Int, ciphersuite: String? = nil, maxVersion: TLSVersion = .tls13, receiveBufferBytes: Int32? = nil,
         resuming: TLSSession? = nil, maxFragmentLength: UInt8? = nil) throws {
        socket = try TestSocket(port: port, receiveBufferBytes: receiveBufferBytes)
        context = try TLSClientContext(TLSClientConfiguration(
            verifiesServer: false, applicationProtocols: ["http/1.1"], maximumVersion: maxVersion,
            tls13CipherSuites: ciphersuite))
        connection = try TLSClientConnection(
            context: context, fd: socket.fd, serverName: "127.0.0.1", resuming: resuming,
            maxFragmentLength: maxFragmentLength, observesRecords: true)
        if case .failed(let error) = connection.handshake() {
            throw TestSocket.Failure(description: "handshake: \(error.message)")
        }
    }

    var version: TLSVersion? { connection.version }
    /// Whether the handshake resumed the offered session.
    var resumed: Bool { connection.resumedSession }
    /// KeyUpdate messages received from the server so far.
    var keyUpdatesReceived: Int { connection.keyUpdatesReceived }
    /// The length field of the largest record received since the handshake.
    var largestRecordReceived: Int { connection.largestRecordReceived }

    /// The session to resume later (see `TLSClientConnection.session()`; read one answer first).
    func session() -> TLSSession? { connection.session() }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let result = bytes.withUnsafeBytes { connection.write(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
            guard case .bytes(let written) = result else { throw TestSocket.Failure(description: "write: \(result)") }
            offset += written
        }
    }

    /// Reads until `count` more HTTP/1.1 responses have arrived.
    func responses(_ count: Int) throws -> [HTTP1TestResponse] {
        while HTTP1Responses.parse(received).count < count {
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let result = chunk.withUnsafeMutableBytes { connection.read(into: $0) }
            guard case .bytes(let read) = result else { throw TestSocket.Failure(description: "read: \(result)") }
            received.append(contentsOf: chunk[0..<read])
        }
        defer { received = [] }
        return HTTP1Responses.parse(received)
    }

    /// Sends one GET and returns its response's body.
    func get(_ path: String) throws -> String {
        try send("GET \(path) HTTP/1.1\r\nHost: test\r\n\r\n")
        return try responses(1)[0].body
    }

    /// Queues a KeyUpdate (asking the server to update its keys too, or not) and sends it at once.
    func updateKeys(requestingPeerUpdate: Bool) throws {
        let result = connection.updateKeys(requestingPeerUpdate: requestingPeerUpdate)
        guard case .bytes = result else { throw TestSocket.Failure(description: "key update: \(result)") }
    }

    /// Reads until the connection ends: what ended it, "close_notify" or the TLS failure's message.
    func readUntilEnd() -> String {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            switch chunk.withUnsafeMutableBytes({ connection.read(into: $0) }) {
            case .bytes: continue
            case .closed: return "close_notify"
            case .failed(let error): return error.message
            case let other: return "\(other) on a blocking socket"
            }
        }
    }

    /// Sends close_notify.
    func shutdown() { connection.shutdown() }
}
