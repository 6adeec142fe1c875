import COpenSSL
import Glibc
@testable import HTTP

/// A blocking TLS client on OpenSSL, over a ``TestSocket``, for the TLS tests: HTTP/1.1 requests, key updates of its
/// own, a count of the KeyUpdates the server sends, the largest record the server sent, and session resumption.
final class TLSTestClient {
    let socket: TestSocket
    private let context: OpaquePointer
    private let ssl: OpaquePointer
    /// KeyUpdate messages received from the server so far.
    private(set) var keyUpdatesReceived = 0
    /// The length field of the largest record received since the handshake.
    private(set) var largestRecordReceived = 0
    private var received: [UInt8] = []

    /// A session a finished connection hands to the next one (`SSL_get1_session`).
    final class Session {
        let session: OpaquePointer
        init(_ session: OpaquePointer) { self.session = session }
        deinit { SSL_SESSION_free(session) }
    }

    /// Connects and completes the handshake. `ciphersuite` limits TLS 1.3 to one suite; `maxVersion` 1.2 makes it a
    /// TLS 1.2 client; `resuming` offers a session from an earlier connection; `maxFragmentLength` asks for records of
    /// at most 2^(8+n) bytes (RFC 6066 §4, 1...4).
    init(port: Int, ciphersuite: String? = nil, maxVersion: Int32 = TLS1_3_VERSION, receiveBufferBytes: Int32? = nil,
         resuming: Session? = nil, maxFragmentLength: UInt8? = nil) throws {
        socket = try TestSocket(port: port, receiveBufferBytes: receiveBufferBytes)
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw TestSocket.Failure(description: "SSL_CTX_new") }
        self.context = context
        if let ciphersuite { _ = SSL_CTX_set_ciphersuites(context, ciphersuite) }
        _ = SSL_CTX_ctrl(context, SSL_CTRL_SET_MAX_PROTO_VERSION, Int(maxVersion), nil)
        // Sessions are kept by the test (SSL_get1_session), not in a client cache, whose flush when the context is
        // freed would mark them not resumable.
        _ = SSL_CTX_ctrl(context, SSL_CTRL_SET_SESS_CACHE_MODE, Int(SSL_SESS_CACHE_OFF), nil)
        let alpn: [UInt8] = [8] + Array("http/1.1".utf8)
        _ = SSL_CTX_set_alpn_protos(context, alpn, UInt32(alpn.count))
        guard let ssl = SSL_new(context) else { throw TestSocket.Failure(description: "SSL_new") }
        self.ssl = ssl
        SSL_set_fd(ssl, socket.fd)
        if let resuming { _ = SSL_set_session(ssl, resuming.session) }
        if let maxFragmentLength { _ = SSL_set_tlsext_max_fragment_length(ssl, maxFragmentLength) }
        _ = SSL_set_ex_data(ssl, 0, Unmanaged.passUnretained(self).toOpaque())
        SSL_set_msg_callback(ssl, tlsTestClientMessage)
        guard SSL_connect(ssl) == 1 else { throw TestSocket.Failure(description: "handshake: \(Self.errors())") }
        largestRecordReceived = 0
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(context)
    }

    var version: Int32 { SSL_version(ssl) }
    /// Whether the handshake resumed the offered session.
    var resumed: Bool { SSL_session_reused(ssl) == 1 }

    /// The session to resume later: over TLS 1.3 one of the tickets the server sent after its handshake, which
    /// arrive with the first answer (read one first). Sends close_notify first: OpenSSL marks the session of a
    /// connection freed without it as not resumable.
    func session() -> Session? {
        shutdown()
        return SSL_get1_session(ssl).map(Session.init)
    }

    func noteMessage(written: Bool, contentType: Int32, bytes: UnsafeRawBufferPointer) {
        guard !written else { return }
        if contentType == SSL3_RT_HANDSHAKE && bytes.first == 24 { keyUpdatesReceived += 1 }
        if contentType == SSL3_RT_HEADER && bytes.count >= 5 {
            largestRecordReceived = max(largestRecordReceived, Int(bytes[3]) << 8 | Int(bytes[4]))
        }
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var written = 0
        guard bytes.withUnsafeBytes({ SSL_write_ex(ssl, $0.baseAddress, $0.count, &written) }) == 1, written == bytes.count else {
            throw TestSocket.Failure(description: "SSL_write: \(Self.errors())")
        }
    }

    /// Reads until `count` more HTTP/1.1 responses have arrived.
    func responses(_ count: Int) throws -> [HTTP1TestResponse] {
        while HTTP1Responses.parse(received).count < count {
            var chunk = [UInt8](repeating: 0, count: 65_536)
            var read = 0
            guard chunk.withUnsafeMutableBytes({ SSL_read_ex(ssl, $0.baseAddress, $0.count, &read) }) == 1 else {
                throw TestSocket.Failure(description: "SSL_read: \(Self.errors())")
            }
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
        guard SSL_key_update(ssl, requestingPeerUpdate ? SSL_KEY_UPDATE_REQUESTED : SSL_KEY_UPDATE_NOT_REQUESTED) == 1,
            SSL_do_handshake(ssl) == 1
        else { throw TestSocket.Failure(description: "key update: \(Self.errors())") }
    }

    /// Reads until the connection ends: what ended it, "close_notify" or OpenSSL's error text.
    func readUntilEnd() -> String {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            var read = 0
            let result = chunk.withUnsafeMutableBytes { SSL_read_ex(ssl, $0.baseAddress, $0.count, &read) }
            if result == 1 { continue }
            let error = SSL_get_error(ssl, 0)
            if error == SSL_ERROR_ZERO_RETURN { return "close_notify" }
            let text = Self.errors()
            return text.isEmpty ? "error \(error) without a reason (errno \(errno))" : text
        }
    }

    /// Sends close_notify.
    func shutdown() { _ = SSL_shutdown(ssl) }

    private static func errors() -> String {
        var parts: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var text = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &text, text.count)
            parts.append(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return parts.joined(separator: "; ")
    }
}

private func tlsTestClientMessage(
    _ writeP: Int32, _ version: Int32, _ contentType: Int32, _ buffer: UnsafeRawPointer?, _ length: Int,
    _ ssl: OpaquePointer?, _ argument: UnsafeMutableRawPointer?
) {
    guard let ssl, let client = SSL_get_ex_data(ssl, 0) else { return }
    Unmanaged<TLSTestClient>.fromOpaque(client).takeUnretainedValue()
        .noteMessage(written: writeP != 0, contentType: contentType, bytes: UnsafeRawBufferPointer(start: buffer, count: buffer == nil ? 0 : length))
}
