internal import COpenSSL
internal import CShimsOpenSSL
import Crypto
import Glibc

/// The client side of one TLS connection, over a connected socket the caller owns (and closes, after this is
/// released). Every call is one non-blocking step: on a blocking socket each completes or fails; on a non-blocking
/// one a ``TLSTransfer/wantRead`` or ``TLSTransfer/wantWrite`` tells the caller what to wait for before calling
/// again. Confined to one thread at a time.
public final class TLSClientConnection {
    private let context: TLSClientContext
    private let ssl: OpaquePointer
    private var handshakeDone = false
    /// KeyUpdate messages received from the server since the handshake (counted only when observing records).
    public private(set) var keyUpdatesReceived = 0
    /// The length field of the largest record received since the handshake (when observing records).
    public private(set) var largestRecordReceived = 0

    /// Prepares the handshake with the server named `serverName` (a DNS name, sent as SNI and checked against the
    /// certificate's DNS names, or an IP address, checked against its addresses; unchecked when the context does
    /// not verify the server). `resuming` offers a session from an earlier connection; `maxFragmentLength` asks
    /// for records of at most 2^(8+n) bytes (RFC 6066 §4, 1...4); `observesRecords` counts the server's key
    /// updates and its largest record, for tests of a server's record layer.
    public init(context: TLSClientContext, fd: Int32, serverName: String, resuming: TLSSession? = nil,
                maxFragmentLength: UInt8? = nil, observesRecords: Bool = false) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard let ssl = SSL_new(context.context) else { throw SSLOutcome.setupFailure("SSL_new failed") }
        self.ssl = ssl
        self.context = context
        guard SSL_set_fd(ssl, fd) == 1 else { throw SSLOutcome.setupFailure("SSL_set_fd failed") }
        switch cshims_SSL_expect_peer_name(ssl, serverName, context.verifiesServer ? 1 : 0) {
        case 1: break
        case -1: throw SSLOutcome.setupFailure("cannot send SNI \(serverName)")
        default: throw SSLOutcome.setupFailure("cannot expect server name \(serverName)")
        }
        if let resuming { _ = SSL_set_session(ssl, resuming.session) }
        if let maxFragmentLength {
            guard SSL_set_tlsext_max_fragment_length(ssl, maxFragmentLength) == 1 else {
                throw SSLOutcome.setupFailure("cannot ask for a maximum fragment length of mode \(maxFragmentLength)")
            }
        }
        if observesRecords {
            _ = SSL_set_ex_data(ssl, 0, Unmanaged.passUnretained(self).toOpaque())
            SSL_set_msg_callback(ssl, observeMessage)
        }
        SSL_set_connect_state(ssl)
    }

    /// SSL_free does not close the socket.
    deinit { SSL_free(ssl) }

    /// One step of the handshake: `.bytes(0)` once it is done, with the server's certificate verified (when the
    /// context verifies) and ALPN settled.
    public func handshake() -> TLSTransfer {
        guard !handshakeDone else { return .bytes(0) }
        OpenSSLErrorQueue.clear()
        let result = SSL_do_handshake(ssl)
        guard result == 1 else { return SSLOutcome.classify(ssl, result, inVerifiedHandshake: context.verifiesServer) }
        handshakeDone = true
        largestRecordReceived = 0
        return .bytes(0)
    }

    /// Reads plaintext into `buffer` (finishing the handshake first if it is not done).
    public func read(into buffer: UnsafeMutableRawBufferPointer) -> TLSTransfer {
        if !handshakeDone, case let step = handshake(), step != .bytes(0) { return step }
        OpenSSLErrorQueue.clear()
        var count = 0
        if SSL_read_ex(ssl, buffer.baseAddress, buffer.count, &count) == 1 { return .bytes(count) }
        return SSLOutcome.classify(ssl, 0)
    }

    /// Writes some of `bytes` (one record or more; partial writes are on). A write that did not move must be
    /// retried with at least the same bytes, which may have moved.
    public func write(_ bytes: UnsafeRawBufferPointer) -> TLSTransfer {
        if !handshakeDone, case let step = handshake(), step != .bytes(0) { return step }
        OpenSSLErrorQueue.clear()
        var count = 0
        if SSL_write_ex(ssl, bytes.baseAddress, bytes.count, &count) == 1 { return .bytes(count) }
        return SSLOutcome.classify(ssl, 0)
    }

    /// Whether TLS holds decrypted bytes of its own: a reader must take them before waiting for the socket again.
    public var hasBufferedInput: Bool { SSL_pending(ssl) > 0 }

    /// The protocol the server chose by ALPN, or nil if none was negotiated (or not yet).
    public var negotiatedProtocol: String? { SSLOutcome.negotiatedProtocol(ssl) }

    /// The version negotiated in the handshake.
    public var version: TLSVersion? { TLSVersion(openSSLValue: SSL_version(ssl)) }

    /// Whether the handshake resumed the offered session.
    public var resumedSession: Bool { SSL_session_reused(ssl) == 1 }

    /// The session to resume later: over TLS 1.3 one of the tickets the server sent after its handshake, which
    /// arrive with the first answer (read one first). Sends close_notify first: OpenSSL marks the session of a
    /// connection freed without it as not resumable.
    public func session() -> TLSSession? {
        shutdown()
        return SSL_get1_session(ssl).map(TLSSession.init)
    }

    /// Sends a KeyUpdate at once, asking the server to update its keys too, or not.
    public func updateKeys(requestingPeerUpdate: Bool) -> TLSTransfer {
        OpenSSLErrorQueue.clear()
        guard SSL_key_update(ssl, requestingPeerUpdate ? SSL_KEY_UPDATE_REQUESTED : SSL_KEY_UPDATE_NOT_REQUESTED) == 1 else {
            return .failed(SSLOutcome.setupFailure("cannot queue a key update"))
        }
        let result = SSL_do_handshake(ssl)
        return result == 1 ? .bytes(0) : SSLOutcome.classify(ssl, result)
    }

    /// Sends close_notify, best effort.
    public func shutdown() {
        OpenSSLErrorQueue.clear()
        _ = SSL_shutdown(ssl)
        OpenSSLErrorQueue.clear()
    }

    fileprivate func noteMessage(written: Bool, contentType: Int32, bytes: UnsafeRawBufferPointer) {
        guard !written else { return }
        if contentType == SSL3_RT_HANDSHAKE && bytes.first == 24 { keyUpdatesReceived += 1 }
        if contentType == SSL3_RT_HEADER && bytes.count >= 5 {
            largestRecordReceived = max(largestRecordReceived, Int(bytes[3]) << 8 | Int(bytes[4]))
        }
    }
}

/// OpenSSL's message callback (SSL_set_msg_callback), set only on connections that observe records: every protocol
/// message and record header, sent or received.
private func observeMessage(
    _ writeP: Int32, _ version: Int32, _ contentType: Int32, _ buffer: UnsafeRawPointer?, _ length: Int,
    _ ssl: OpaquePointer?, _ argument: UnsafeMutableRawPointer?
) {
    guard let ssl, let connection = SSL_get_ex_data(ssl, 0) else { return }
    Unmanaged<TLSClientConnection>.fromOpaque(connection).takeUnretainedValue().noteMessage(
        written: writeP != 0, contentType: contentType,
        bytes: UnsafeRawBufferPointer(start: buffer, count: buffer == nil ? 0 : length))
}
