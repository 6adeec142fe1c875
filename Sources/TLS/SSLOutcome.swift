internal import COpenSSL
import Crypto
import Glibc

/// What an SSL call that did not complete means, from SSL_get_error, the thread's error queue and errno: shared by
/// the server's streams and the clients, so both read OpenSSL's answers the same way.
enum SSLOutcome {
    /// Call right after the failed SSL call (`result` is what it returned), before anything else touches errno or
    /// this thread's error queue. `inVerifiedHandshake`: the call was a handshake step that checks the peer's
    /// certificate, so a failed check is reported as such (OpenSSL keeps its verdict even where it was not asked to
    /// act on it).
    static func classify(_ ssl: OpaquePointer, _ result: Int32, inVerifiedHandshake: Bool = false) -> TLSTransfer {
        let code = SSL_get_error(ssl, result)
        let systemError = errno
        switch code {
        case SSL_ERROR_WANT_READ:
            return .wantRead
        case SSL_ERROR_WANT_WRITE:
            return .wantWrite
        case SSL_ERROR_ZERO_RETURN:
            return .closed
        case SSL_ERROR_SYSCALL:
            let detail = OpenSSLErrorQueue.drain()
            let text = detail.isEmpty
                ? (systemError == 0 ? "the peer closed the connection" : String(cString: strerror(systemError)))
                : detail
            return .failed(TLSError(.systemCallFailed, text, systemError: systemError))
        default:
            // OpenSSL 3 reports a TCP end without close_notify as an error of its own: a truncation, which each
            // caller judges (the server fails the connection; a client of a self-delimiting protocol sees an end).
            if ERR_GET_REASON(ERR_peek_error()) == SSL_R_UNEXPECTED_EOF_WHILE_READING {
                return .failed(TLSError(.truncated, OpenSSLErrorQueue.drain()))
            }
            let verification = inVerifiedHandshake ? SSL_get_verify_result(ssl) : Int(X509_V_OK)
            if verification != X509_V_OK {
                let reason = String(cString: X509_verify_cert_error_string(verification))
                let detail = OpenSSLErrorQueue.drain()
                return .failed(TLSError(
                    .certificateRefused, "the peer's certificate was refused: \(reason)" + (detail.isEmpty ? "" : " (\(detail))")))
            }
            let detail = OpenSSLErrorQueue.drain()
            return .failed(TLSError(.protocolFailed, detail.isEmpty ? "protocol error" : detail))
        }
    }

    /// The protocol ALPN chose, or nil if none was negotiated.
    static func negotiatedProtocol(_ ssl: OpaquePointer) -> String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// A setup failure: `what`, followed by whatever OpenSSL queued.
    static func setupFailure(_ what: String) -> TLSError {
        let detail = OpenSSLErrorQueue.drain()
        return TLSError(.setupFailed, what + (detail.isEmpty ? "" : ": \(detail)"))
    }
}
