import Glibc
import TLS

/// Two connected non-blocking Unix sockets: a TLS server stream on one end and a TLS client on the other, driven in
/// turn on one thread until both are done.
final class SocketPair {
    let serverFD: Int32
    let clientFD: Int32

    init() {
        var fds: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        precondition(socketpair(AF_UNIX, type, 0, &fds) == 0, "socketpair failed")
        serverFD = fds[0]
        clientFD = fds[1]
    }

    deinit {
        close(serverFD)
        close(clientFD)
    }

    /// Runs the client's handshake and the server's first read until the client is done (or failed); returns the
    /// client's last step, after a few more server reads so that the server's side finishes too.
    @discardableResult
    func handshake(_ client: TLSClientConnection, _ server: TLSServerStream) -> TLSTransfer {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var step = TLSTransfer.wantRead
        for _ in 0..<50 {
            step = client.handshake()
            _ = buffer.withUnsafeMutableBytes { server.read(into: $0) }
            if step == .bytes(0) || step != .wantRead && step != .wantWrite { break }
        }
        for _ in 0..<3 { _ = buffer.withUnsafeMutableBytes { server.read(into: $0) } }
        return step
    }
}
