internal import COpenSSL
internal import CShimsOpenSSL
public import Crypto
import Glibc

/// The server side of one TLS connection: OpenSSL's SSL object on the connection's non-blocking socket (a socket BIO,
/// so the kernel can take the records over when it offers kTLS), from the handshake, which runs inside the first
/// reads, to close. Confined to the connection's thread.
public final class TLSServerStream {
    private let context: TLSServerContext
    private let ssl: OpaquePointer
    /// Whether the handshake has finished.
    public private(set) var isHandshakeDone = false
    /// The protocol chosen by ALPN (`h2`, `http/1.1`), or nil if none was negotiated (or not yet).
    public private(set) var negotiatedProtocol: String?
    /// The client's certificate, verified against the listener's client CAs during the handshake (or the one a
    /// resumed session carries); nil when the listener asks for none or the client sent none.
    public private(set) var clientCertificate: Certificate?

    /// The most plaintext OpenSSL puts in one record, and so the most a write that would block may have taken
    /// in part: a retried write must offer at least as much as before.
    public static let maxRecordPlaintext = 16_384

    /// nil when OpenSSL cannot allocate the connection (its error queue says why: ``OpenSSLErrorQueue/drain()``).
    public init?(context: TLSServerContext, fd: Int32) {
        OpenSSLErrorQueue.clear()
        guard let ssl = SSL_new(context.context) else { return nil }
        self.ssl = ssl
        self.context = context
        SSL_set_fd(ssl, fd)
        SSL_set_accept_state(ssl)
    }

    deinit { SSL_free(ssl) }

    /// Reads plaintext into `buffer`, running the rest of the handshake first.
    public func read(into buffer: UnsafeMutableRawBufferPointer) -> TLSTransfer {
        if let stopped = continueHandshake() { return stopped }
        OpenSSLErrorQueue.clear()
        var count = 0
        if SSL_read_ex(ssl, buffer.baseAddress, buffer.count, &count) == 1 { return .bytes(count) }
        return SSLOutcome.classify(ssl, 0)
    }

    /// Writes `bytes` (`SSL_write_ex` with partial writes: a write that did not move must be retried with at least
    /// the same bytes, which may have moved).
    public func write(_ bytes: UnsafeRawBufferPointer) -> TLSTransfer {
        if let stopped = continueHandshake() { return stopped }
        OpenSSLErrorQueue.clear()
        var count = 0
        if SSL_write_ex(ssl, bytes.baseAddress, bytes.count, &count) == 1 { return .bytes(count) }
        return SSLOutcome.classify(ssl, 0)
    }

    /// Sends close_notify, best effort (the socket is closed or shut right after).
    public func shutdown() {
        OpenSSLErrorQueue.clear()
        _ = SSL_shutdown(ssl)
        OpenSSLErrorQueue.clear()
    }

    /// Drives the handshake until it is done (nil), or returns what stops it.
    private func continueHandshake() -> TLSTransfer? {
        guard !isHandshakeDone else { return nil }
        OpenSSLErrorQueue.clear()
        let result = SSL_do_handshake(ssl)
        guard result == 1 else { return SSLOutcome.classify(ssl, result, inVerifiedHandshake: context.verifiesClients) }
        isHandshakeDone = true
        negotiatedProtocol = SSLOutcome.negotiatedProtocol(ssl)
        context.noteHandshake(
            resumed: SSL_session_reused(ssl) == 1,
            kernelSend: SSL_get_wbio(ssl).map { cshims_BIO_get_ktls_send($0) == 1 } ?? false,
            kernelReceive: SSL_get_rbio(ssl).map { cshims_BIO_get_ktls_recv($0) == 1 } ?? false,
            version: String(cString: SSL_get_version(ssl)))
        if context.verifiesClients { clientCertificate = Self.verifiedPeerCertificate(ssl) }
        return nil
    }

    /// The peer's certificate of a finished handshake, when it sent one and OpenSSL verified it.
    private static func verifiedPeerCertificate(_ ssl: OpaquePointer) -> Certificate? {
        guard SSL_get_verify_result(ssl) == X509_V_OK, let peer = SSL_get1_peer_certificate(ssl) else { return nil }
        defer { X509_free(peer) }
        var der: UnsafeMutablePointer<UInt8>? = nil
        let count = i2d_X509(peer, &der)
        defer { cshims_OPENSSL_free(der) }
        guard count > 0, let der else { return nil }
        return try? Certificate(derEncoded: Array(UnsafeBufferPointer(start: der, count: Int(count))))
    }
}
