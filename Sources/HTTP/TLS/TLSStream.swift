import COpenSSL

/// The TLS side of one connection: an SSL object on the connection's non-blocking socket. Confined to the
/// connection's loop thread. The handshake runs inside the first reads.
final class TLSStream {
    private let ssl: OpaquePointer
    /// A read needs the socket to become writable first (handshake output that did not fit).
    private(set) var readWantsWrite = false

    init?(context: TLSContext, fd: Int32) {
        guard let ssl = SSL_new(context.context) else { return nil }
        self.ssl = ssl
        SSL_set_fd(ssl, fd)
        SSL_set_accept_state(ssl)
    }

    deinit { SSL_free(ssl) }

    /// The protocol chosen by ALPN (`h2`, `http/1.1`), or nil if none was negotiated (or not yet).
    var negotiatedProtocol: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        OpenSSLErrorQueue.clear()
        var count = 0
        readWantsWrite = false
        if SSL_read_ex(ssl, buffer.baseAddress, buffer.count, &count) == 1 { return .bytes(count) }
        return outcome(of: 0, wantWrite: &readWantsWrite)
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> IOResult {
        OpenSSLErrorQueue.clear()
        var count = 0
        if SSL_write_ex(ssl, bytes.baseAddress, bytes.count, &count) == 1 { return .bytes(count) }
        var ignored = false
        return outcome(of: 0, wantWrite: &ignored)
    }

    /// Sends close_notify, best effort (the socket is closed right after).
    func shutdown() {
        OpenSSLErrorQueue.clear()
        _ = SSL_shutdown(ssl)
        OpenSSLErrorQueue.clear()
    }

    private func outcome(of result: Int32, wantWrite: inout Bool) -> IOResult {
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ:
            return .wouldBlock
        case SSL_ERROR_WANT_WRITE:
            wantWrite = true
            return .wouldBlock
        case SSL_ERROR_ZERO_RETURN:
            return .endOfFile
        case SSL_ERROR_SYSCALL:
            let detail = OpenSSLErrorQueue.drain()
            return detail.isEmpty ? .endOfFile : .failed("TLS: \(detail)")
        default:
            let detail = OpenSSLErrorQueue.drain()
            return .failed("TLS: " + (detail.isEmpty ? "protocol error" : detail))
        }
    }
}
