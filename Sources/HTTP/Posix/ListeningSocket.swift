import CShimsLinux
import Glibc

/// A non-blocking SO_REUSEPORT listening socket; every loop binds its own, and the kernel spreads connections.
enum ListeningSocket {
    /// Creates, binds and listens. Throws `bindFailed` naming `listenerName` and the errno text.
    static func open(_ address: SocketAddress, listenerName: String) throws(HTTPServerError) -> Int32 {
        let fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | cshims_SOCK_NONBLOCK | cshims_SOCK_CLOEXEC, 0)
        guard fd >= 0 else { throw failure("socket", listenerName) }
        var one: Int32 = 1
        let size = socklen_t(MemoryLayout<Int32>.size)
        guard setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, size) == 0,
            setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, size) == 0
        else {
            let error = failure("setsockopt", listenerName)
            Posix.close(fd)
            throw error
        }
        let bound = address.withSockAddr { bind(fd, $0, $1) }
        guard bound == 0 else {
            let error = failure("bind", listenerName)
            Posix.close(fd)
            throw error
        }
        guard listen(fd, 1024) == 0 else {
            let error = failure("listen", listenerName)
            Posix.close(fd)
            throw error
        }
        return fd
    }

    /// The port the kernel chose, for listeners asked to bind port 0.
    static func boundPort(_ fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return SocketAddress.describe(storage).port
    }

    private static func failure(_ call: String, _ listenerName: String) -> HTTPServerError {
        HTTPServerError(.bindFailed, "listener \(listenerName): \(call) failed: \(Posix.describe(errno))")
    }
}
