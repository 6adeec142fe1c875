import Glibc
import TLS

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
    /// The TLS connection, if any; released with the transport, before `close` closes the socket.
    let tls: TLSClientConnection?

    func read(into buffer: UnsafeMutableRawBufferPointer) -> TransferResult {
        guard let tls else { return Self.plain { recv(fd, buffer.baseAddress, buffer.count, 0) } }
        return Self.outcome(tls.read(into: buffer))
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> TransferResult {
        guard let tls else { return Self.plain { send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) } }
        return Self.outcome(tls.write(bytes))
    }

    /// TLS buffers decrypted bytes of its own: a connection must read them before waiting for the socket again.
    var hasBufferedInput: Bool { tls?.hasBufferedInput ?? false }

    func close() {
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

    private static func outcome(_ transfer: TLSTransfer) -> TransferResult {
        switch transfer {
        case .bytes(let count): return count > 0 ? .moved(count) : .closed
        // A want of the other direction: the worker's loop flushes and reads every connection each turn, so the
        // other direction comes round without more bookkeeping here.
        case .wantRead, .wantWrite: return .wouldBlock
        case .closed, .failed: return .closed
        }
    }
}
