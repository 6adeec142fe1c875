import COpenSSL
import CShims
import Glibc

/// The bench's TLS client side: one SSL_CTX for every connection, TLS 1.2 or later, ALPN "h2" only, and the server's
/// certificate verified against `--ca` (or the system's trust store) for the name or address dialled, unless
/// `--insecure`. Handshakes are blocking, before a connection joins its worker's epoll set: the timed phases measure
/// requests on open connections, as the h2c path does.
///
/// `@unchecked Sendable`: after `init` the context is only read to create SSL objects, which OpenSSL allows from any
/// thread.
final class ClientTLS: @unchecked Sendable {
    private let context: OpaquePointer
    private let verify: Bool
    private let serverName: String?

    /// - Parameters:
    ///   - caFile: PEM certificates to trust (the server's own, for a self-signed one); nil: the system's store.
    ///   - verify: false skips the certificate check (`--insecure`).
    ///   - serverName: the name to send (SNI) and check; nil: the host dialled (an address is checked as one).
    init(caFile: String?, verify: Bool, serverName: String?) throws(BenchError) {
        // A write to a socket the server closed must fail with EPIPE, not kill the bench.
        signal(SIGPIPE, SIG_IGN)
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw Self.failure("SSL_CTX_new failed") }
        self.context = context
        self.verify = verify
        self.serverName = serverName
        guard cshims_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1 else {
            throw Self.failure("cannot require TLS 1.2")
        }
        // Partial writes and a moving buffer: a connection's output array may grow between two tries of one write.
        _ = cshims_SSL_CTX_set_mode(context, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
        let alpn: [UInt8] = [2, UInt8(ascii: "h"), UInt8(ascii: "2")]
        guard SSL_CTX_set_alpn_protos(context, alpn, UInt32(alpn.count)) == 0 else { throw Self.failure("cannot offer ALPN h2") }
        if verify {
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
            if let caFile {
                guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
                    throw Self.failure("cannot load CA file \(caFile)")
                }
            } else if SSL_CTX_set_default_verify_paths(context) != 1 {
                throw Self.failure("cannot load the system's trust store")
            }
        } else {
            SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        }
    }

    deinit { SSL_CTX_free(context) }

    /// Seconds a blocking handshake may wait for the server, so a peer that accepts and says nothing cannot hang
    /// the bench.
    static let handshakeTimeoutSeconds = 10

    /// Runs the handshake on a connected, still blocking socket; returns the SSL object, which owns nothing but the
    /// session (the caller closes the socket).
    func handshake(fd: Int32, host: String) throws(BenchError) -> OpaquePointer {
        var timeout = timeval(tv_sec: Self.handshakeTimeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        defer {
            // Non-blocking from here on: the timeouts no longer apply, but leave nothing behind.
            var none = timeval(tv_sec: 0, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &none, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &none, socklen_t(MemoryLayout<timeval>.size))
        }
        ERR_clear_error()
        guard let ssl = SSL_new(context) else { throw Self.failure("SSL_new failed") }
        do throws(BenchError) {
            guard SSL_set_fd(ssl, fd) == 1 else { throw Self.failure("SSL_set_fd failed") }
            let name = serverName ?? host
            guard cshims_SSL_expect_peer_name(ssl, name, verify ? 1 : 0) == 1 else {
                throw Self.failure("cannot name the server \(name) in the handshake")
            }
            guard SSL_connect(ssl) == 1 else {
                let result = SSL_get_verify_result(ssl)
                let reason = result == X509_V_OK ? "" : " (\(String(cString: X509_verify_cert_error_string(result))))"
                throw Self.failure("TLS handshake with \(name) failed\(reason)")
            }
            var selected: UnsafePointer<UInt8>?
            var length: UInt32 = 0
            SSL_get0_alpn_selected(ssl, &selected, &length)
            guard let selected, length == 2, selected[0] == UInt8(ascii: "h"), selected[1] == UInt8(ascii: "2") else {
                throw BenchError("tls: \(name) did not agree to HTTP/2 (ALPN h2)")
            }
            return ssl
        } catch {
            SSL_free(ssl)
            throw error
        }
    }

    /// `what`, followed by whatever OpenSSL queued (drained by the loop every module shares, `cshims_ERR_drain`).
    private static func failure(_ what: String) -> BenchError {
        let detail = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 2048) { buffer in
            let count = cshims_ERR_drain(buffer.baseAddress, buffer.count)
            return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress, count: count), as: UTF8.self)
        }
        return BenchError("tls: \(what)" + (detail.isEmpty ? "" : ": \(detail)"))
    }
}

/// What a non-blocking read or write on a connection did.
enum TransferResult {
    /// This many bytes moved (more than 0).
    case moved(Int)
    /// Nothing now: try again when the socket is ready.
    case wouldBlock
    /// The peer closed the connection, or it failed.
    case closed
}

/// Moves bytes over the socket, in the clear (h2c) or through TLS.
struct ClientTransport {
    let fd: Int32
    /// The TLS session, if any; freed by `close`.
    let ssl: OpaquePointer?

    func read(into buffer: UnsafeMutableRawBufferPointer) -> TransferResult {
        guard let ssl else { return Self.plain { recv(fd, buffer.baseAddress, buffer.count, 0) } }
        ERR_clear_error()
        let count = SSL_read(ssl, buffer.baseAddress, Int32(min(buffer.count, Int(Int32.max))))
        return count > 0 ? .moved(Int(count)) : Self.outcome(ssl, count)
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> TransferResult {
        guard let ssl else { return Self.plain { send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) } }
        ERR_clear_error()
        let sent = SSL_write(ssl, bytes.baseAddress, Int32(min(bytes.count, Int(Int32.max))))
        return sent > 0 ? .moved(Int(sent)) : Self.outcome(ssl, sent)
    }

    /// TLS buffers decrypted bytes of its own: a connection must read them before waiting for the socket again.
    var hasBufferedInput: Bool { ssl.map { SSL_pending($0) > 0 } ?? false }

    func close() {
        if let ssl { SSL_free(ssl) }
        Glibc.close(fd)
    }

    /// A system call on the socket in the clear, retried when a signal interrupted it.
    private static func plain(_ call: () -> Int) -> TransferResult {
        while true {
            let count = call()
            if count > 0 { return .moved(count) }
            if count < 0 && errno == EINTR { continue }
            return count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? .wouldBlock : .closed
        }
    }

    private static func outcome(_ ssl: OpaquePointer, _ result: Int32) -> TransferResult {
        switch SSL_get_error(ssl, result) {
        // WANT_WRITE on a read (or READ on a write): the worker's loop flushes and reads every connection each turn,
        // so the other direction comes round without more bookkeeping here.
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return .wouldBlock
        default:
            ERR_clear_error()
            return .closed
        }
    }
}
