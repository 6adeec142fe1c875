import Glibc
import TLS

/// TLS over a connected `RedisSocket`, through the TLS module's client: the handshake verifies the server's
/// certificate chain and that it names the expected server; reads and writes wait on the socket (poll) when TLS
/// wants to read or write, up to a deadline.
final class RedisTLSStream: RedisTransport {
    private let connection: TLSClientConnection
    /// Closes the descriptor when released (freeing the TLS connection neither reads nor writes it).
    private let socket: RedisSocket

    /// Runs the handshake, which must finish before `deadline`.
    init(socket: RedisSocket, context: TLSClientContext, serverName: String,
         deadline: ContinuousClock.Instant) throws(RedisFailure) {
        do throws(TLSError) {
            connection = try TLSClientConnection(context: context, fd: socket.fd, serverName: serverName)
        } catch {
            throw .connection("tls: \(error.message)")
        }
        self.socket = socket
        while true {
            let step = connection.handshake()
            if case .bytes = step { break }
            try wait(after: step, deadline: deadline, doing: "in the TLS handshake")
        }
    }

    func send(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant) throws(RedisFailure) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            // After wantWrite the call is repeated with the same bytes, as OpenSSL requires.
            let result = connection.write(UnsafeRawBufferPointer(start: base + offset, count: bytes.count - offset))
            if case .bytes(let written) = result {
                offset += written
                continue
            }
            try wait(after: result, deadline: deadline, doing: "writing a command")
        }
    }

    func receive(into buffer: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant) throws(RedisFailure) -> Int {
        while true {
            let result = connection.read(into: buffer)
            if case .bytes(let count) = result { return count }
            try wait(after: result, deadline: deadline, doing: "waiting for a reply")
        }
    }

    /// After a call that did not complete: waits for the socket when TLS asks to, or throws what went wrong.
    private func wait(after result: TLSTransfer, deadline: ContinuousClock.Instant, doing what: String) throws(RedisFailure) {
        switch result {
        case .bytes:
            return
        case .wantRead:
            try socket.wait(for: POLLIN, until: deadline, doing: what)
        case .wantWrite:
            try socket.wait(for: POLLOUT, until: deadline, doing: what)
        case .closed:
            throw .closed("the server closed the TLS connection")
        case .failed(let error):
            switch error.code {
            case .systemCallFailed:
                guard error.systemError != 0 else { throw .closed("the server closed the connection") }
                throw RedisSocket.failure(error.systemError)
            case .truncated:
                // A server that closed without close_notify (killed, restarted) is a closed connection, not an
                // attack: RESP frames its own messages, so a truncated reply is never mistaken for a whole one.
                throw .closed("the server closed the TLS connection")
            case .certificateRefused:
                throw .connection("tls: \(error.message)")
            default:
                throw .connection("tls: failed \(what): \(error.message)")
            }
        }
    }
}
