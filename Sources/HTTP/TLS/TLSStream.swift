import COpenSSL
import CShims
import Crypto
import Glibc

/// The TLS side of one connection: OpenSSL's SSL object on the connection's non-blocking socket (a socket BIO, so
/// the kernel can take the records over when it offers kTLS), from the handshake, which runs inside the first reads,
/// to close. Confined to the connection's loop thread.
final class TLSStream {
    private let context: TLSContext
    private let ssl: OpaquePointer
    private var handshakeDone = false
    /// A read needs the socket to become writable first (handshake output that did not fit).
    private(set) var readWantsWrite = false
    /// The protocol chosen by ALPN (`h2`, `http/1.1`), or nil if none was negotiated (or not yet).
    private(set) var negotiatedProtocol: String?
    /// The client's certificate, verified against the listener's client CAs during the handshake (or the one a
    /// resumed session carries); nil when the listener asks for none or the client sent none.
    private(set) var clientCertificate: ClientCertificate?

    /// The most plaintext OpenSSL puts in one record, and so the most a write that would block may have taken
    /// in part: a retried write must offer at least as much as before.
    static let maxRecordPlaintext = 16_384

    init?(context: TLSContext, fd: Int32) {
        guard let ssl = SSL_new(context.context) else { return nil }
        self.ssl = ssl
        self.context = context
        SSL_set_fd(ssl, fd)
        SSL_set_accept_state(ssl)
    }

    deinit { SSL_free(ssl) }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        readWantsWrite = false
        if let failure = continueHandshake(wantWrite: &readWantsWrite) { return failure }
        OpenSSLErrorQueue.clear()
        var count = 0
        if SSL_read_ex(ssl, buffer.baseAddress, buffer.count, &count) == 1 { return .bytes(count) }
        return outcome(of: 0, wantWrite: &readWantsWrite)
    }

    /// Writes `bytes` (`SSL_write_ex` with partial writes: a write that returned `.wouldBlock` must be retried with at
    /// least the same bytes, which may have moved).
    func write(_ bytes: UnsafeRawBufferPointer) -> IOResult {
        var ignored = false
        if let failure = continueHandshake(wantWrite: &ignored) { return failure }
        OpenSSLErrorQueue.clear()
        var count = 0
        if SSL_write_ex(ssl, bytes.baseAddress, bytes.count, &count) == 1 { return .bytes(count) }
        return outcome(of: 0, wantWrite: &ignored)
    }

    /// Sends close_notify, best effort (the socket is closed or shut right after).
    func shutdown() {
        OpenSSLErrorQueue.clear()
        _ = SSL_shutdown(ssl)
        OpenSSLErrorQueue.clear()
    }

    /// Drives the handshake until it is done (nil), or returns what stops it.
    private func continueHandshake(wantWrite: inout Bool) -> IOResult? {
        guard !handshakeDone else { return nil }
        OpenSSLErrorQueue.clear()
        let result = SSL_do_handshake(ssl)
        guard result == 1 else { return outcome(of: result, wantWrite: &wantWrite) }
        handshakeDone = true
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        if let data, length > 0 {
            negotiatedProtocol = String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
        }
        context.noteHandshake(
            resumed: SSL_session_reused(ssl) == 1,
            kernelSend: SSL_get_wbio(ssl).map { cshims_BIO_get_ktls_send($0) == 1 } ?? false,
            kernelReceive: SSL_get_rbio(ssl).map { cshims_BIO_get_ktls_recv($0) == 1 } ?? false,
            version: String(cString: SSL_get_version(ssl)))
        if context.verifiesClients { clientCertificate = ClientCertificate(verifiedBy: ssl) }
        return nil
    }

    private func outcome(of result: Int32, wantWrite: inout Bool) -> IOResult {
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ:
            return .wouldBlock
        case SSL_ERROR_WANT_WRITE:
            wantWrite = true
            return .wouldBlock
        case SSL_ERROR_ZERO_RETURN:
            // close_notify: the peer's clean end. A TCP end without it is a truncation, which OpenSSL reports as an
            // error ("unexpected eof while reading") and which ends the connection as a failure.
            return .endOfFile
        case SSL_ERROR_SYSCALL:
            let code = errno
            let detail = OpenSSLErrorQueue.drain()
            return .failed("TLS: " + (detail.isEmpty ? Posix.describe(code) : detail))
        default:
            let detail = OpenSSLErrorQueue.drain()
            return .failed("TLS: " + (detail.isEmpty ? "protocol error" : detail))
        }
    }
}
