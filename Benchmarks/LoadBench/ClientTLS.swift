import Glibc
import TLS

/// The bench's TLS client side, through the TLS module's client (the one attestd's Redis transport uses): one context
/// for every connection, TLS 1.2 or later, ALPN "h2" only, and the server's certificate verified against `--ca` (or
/// the system's trust store) for the name or address dialled, unless `--insecure`. Handshakes are blocking, before a
/// connection joins its worker's epoll set: the timed phases measure requests on open connections, as the h2c path
/// does.
///
/// `@unchecked Sendable`: after `init` the context is only read to create connections, which OpenSSL allows from any
/// thread.
final class ClientTLS: @unchecked Sendable {
    private let context: TLSClientContext
    private let serverName: String?

    /// - Parameters:
    ///   - caFile: PEM certificates to trust (the server's own, for a self-signed one); nil: the system's store.
    ///   - verify: false skips the certificate check (`--insecure`).
    ///   - serverName: the name to send (SNI) and check; nil: the host dialled (an address is checked as one).
    init(caFile: String?, verify: Bool, serverName: String?) throws(BenchError) {
        do throws(TLSError) {
            context = try TLSClientContext(TLSClientConfiguration(
                caFilePath: caFile, verifiesServer: verify, applicationProtocols: ["h2"]))
        } catch {
            throw BenchError("tls: \(error.message)")
        }
        self.serverName = serverName
    }

    /// Seconds a blocking handshake may wait for the server, so a peer that accepts and says nothing cannot hang
    /// the bench.
    static let handshakeTimeoutSeconds = 10

    /// Runs the handshake on a connected, still blocking socket; the connection owns nothing but the session (the
    /// caller closes the socket).
    func handshake(fd: Int32, host: String) throws(BenchError) -> TLSClientConnection {
        var timeout = timeval(tv_sec: Self.handshakeTimeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        defer {
            // Non-blocking from here on: the timeouts no longer apply, but leave nothing behind.
            var none = timeval(tv_sec: 0, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &none, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &none, socklen_t(MemoryLayout<timeval>.size))
        }
        let name = serverName ?? host
        let connection: TLSClientConnection
        do throws(TLSError) {
            connection = try TLSClientConnection(context: context, fd: fd, serverName: name)
        } catch {
            throw BenchError("tls: cannot name the server \(name) in the handshake: \(error.message)")
        }
        switch connection.handshake() {
        case .bytes:
            break
        case .failed(let error):
            throw BenchError("tls: TLS handshake with \(name) failed: \(error.message)")
        case .wantRead, .wantWrite:
            // A blocking socket whose timeout expired.
            throw BenchError("tls: TLS handshake with \(name) failed: no answer within \(Self.handshakeTimeoutSeconds) s")
        case .closed:
            throw BenchError("tls: TLS handshake with \(name) failed: the server closed the connection")
        }
        guard connection.negotiatedProtocol == "h2" else {
            throw BenchError("tls: \(name) did not agree to HTTP/2 (ALPN h2)")
        }
        return connection
    }
}
