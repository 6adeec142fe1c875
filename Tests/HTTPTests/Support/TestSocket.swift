import Glibc

/// A blocking TCP client socket with a receive timeout, so a broken server fails a test instead of hanging it.
final class TestSocket {
    let fd: Int32

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// `receiveBufferBytes`: SO_RCVBUF, set before connecting so that the TCP window is that small from the start
    /// (a slow reader's trick: the server's writes then make progress a few bytes at a time).
    init(port: Int, receiveTimeoutSeconds: Int = 5, receiveBufferBytes: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBufferBytes {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let error = Failure(description: "connect: \(String(cString: strerror(errno)))")
            Glibc.close(fd)
            throw error
        }
        var timeout = timeval(tv_sec: receiveTimeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { Glibc.close(fd) }

    /// Whether a connection to 127.0.0.1:`port` is refused.
    static func isRefused(port: Int) -> Bool {
        do {
            _ = try TestSocket(port: port)
            return false
        } catch {
            return true
        }
    }

    func send(_ text: String) { send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written <= 0 { return }
            offset += written
        }
    }

    /// One read of at most `limit` bytes: what arrived (empty once the peer has closed or reset the connection,
    /// or the receive timeout passed).
    func receiveSome(limit: Int) -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: limit)
        let count = chunk.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
        return count > 0 ? Array(chunk[0..<count]) : []
    }

    /// Reads until `done` says so, the peer closes, or the receive timeout passes.
    func receive(until done: ([UInt8]) -> Bool = { _ in false }) -> (bytes: [UInt8], closed: Bool) {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while !done(received) {
            let count = chunk.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { return (received, true) }
            if count < 0 { return (received, errno == ECONNRESET) }
            received.append(contentsOf: chunk[0..<count])
        }
        return (received, false)
    }
}
