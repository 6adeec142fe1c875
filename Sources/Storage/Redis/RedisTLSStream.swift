import COpenSSL
import CShims
import Crypto
import Glibc

/// TLS over a connected `RedisSocket`: the handshake verifies the server's certificate chain and that it names the
/// expected server; reads and writes wait on the socket (poll) when OpenSSL wants to read or write, up to a deadline.
final class RedisTLSStream: RedisTransport {
    private let socket: RedisSocket
    private let ssl: OpaquePointer

    /// Runs the handshake, which must finish before `deadline`.
    init(socket: RedisSocket, context: RedisTLSContext, serverName: String,
         deadline: ContinuousClock.Instant) throws(RedisFailure) {
        OpenSSLErrorQueue.clear()
        guard let ssl = SSL_new(context.context) else { throw Self.failure("SSL_new failed") }
        self.ssl = ssl
        self.socket = socket
        guard SSL_set_fd(ssl, socket.fd) == 1 else { throw Self.failure("SSL_set_fd failed") }
        try expect(serverName)
        while true {
            OpenSSLErrorQueue.clear()
            let result = SSL_connect(ssl)
            if result == 1 { break }
            try wait(after: result, deadline: deadline, doing: "in the TLS handshake")
        }
    }

    /// SSL_free does not close the socket; `socket` is released (and closed) after it.
    deinit { SSL_free(ssl) }

    func send(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant) throws(RedisFailure) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            OpenSSLErrorQueue.clear()
            var written = 0
            // After WANT_WRITE the call is repeated with the same arguments, as OpenSSL requires.
            if SSL_write_ex(ssl, base + offset, bytes.count - offset, &written) == 1 {
                offset += written
                continue
            }
            try wait(after: 0, deadline: deadline, doing: "writing a command")
        }
    }

    func receive(into buffer: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant) throws(RedisFailure) -> Int {
        while true {
            OpenSSLErrorQueue.clear()
            var count = 0
            if SSL_read_ex(ssl, buffer.baseAddress, buffer.count, &count) == 1 { return count }
            try wait(after: 0, deadline: deadline, doing: "waiting for a reply")
        }
    }

    /// Makes the handshake accept only a certificate for `serverName` (an IP address or a DNS name, sent as SNI).
    private func expect(_ serverName: String) throws(RedisFailure) {
        switch cshims_SSL_expect_peer_name(ssl, serverName, 1) {
        case 1: return
        case -1: throw Self.failure("cannot send SNI \(serverName)")
        default: throw Self.failure("cannot expect server name \(serverName)")
        }
    }

    /// After a call that did not complete: waits for the socket when OpenSSL asks to, or throws what went wrong.
    private func wait(after result: Int32, deadline: ContinuousClock.Instant, doing what: String) throws(RedisFailure) {
        let code = SSL_get_error(ssl, result)
        let systemError = errno
        switch code {
        case SSL_ERROR_WANT_READ:
            try socket.wait(for: POLLIN, until: deadline, doing: what)
        case SSL_ERROR_WANT_WRITE:
            try socket.wait(for: POLLOUT, until: deadline, doing: what)
        case SSL_ERROR_ZERO_RETURN:
            throw .closed("the server closed the TLS connection")
        case SSL_ERROR_SYSCALL:
            let detail = OpenSSLErrorQueue.drain()
            guard systemError != 0 else { throw .closed("the server closed the connection" + Self.suffix(detail)) }
            throw RedisSocket.failure(systemError)
        default:
            // A server that closed without close_notify (killed, restarted) is a closed connection, not an attack:
            // RESP frames its own messages, so a truncated reply is never mistaken for a whole one.
            if ERR_GET_REASON(ERR_peek_error()) == SSL_R_UNEXPECTED_EOF_WHILE_READING {
                OpenSSLErrorQueue.clear()
                throw .closed("the server closed the TLS connection")
            }
            let verification = SSL_get_verify_result(ssl)
            if verification != X509_V_OK {
                OpenSSLErrorQueue.clear()
                let reason = String(cString: X509_verify_cert_error_string(verification))
                throw .connection("tls: the server's certificate was refused: \(reason)")
            }
            throw Self.failure("failed \(what)")
        }
    }

    private static func failure(_ what: String) -> RedisFailure {
        .connection("tls: \(what)" + suffix(OpenSSLErrorQueue.drain()))
    }

    private static func suffix(_ detail: String) -> String {
        detail.isEmpty ? "" : ": \(detail)"
    }
}
