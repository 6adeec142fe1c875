import CShimsLinux
import Glibc

/// The outcome of one non-blocking read or write.
enum IOResult: Equatable {
    /// This many bytes moved (a read of 0 bytes is `.endOfFile`).
    case bytes(Int)
    /// The socket (or TLS) cannot make progress until the next readiness event.
    case wouldBlock
    /// The peer closed its side.
    case endOfFile
    /// A fatal error for this connection (errno or a TLS failure description).
    case failed(String)
}

/// Thin, typed wrappers over the socket syscalls the loops use; EINTR is retried, EAGAIN becomes `.wouldBlock`.
enum Posix {
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        while true {
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if n > 0 { return .bytes(n) }
            if n == 0 { return .endOfFile }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case let code: return .failed(describe(code))
            }
        }
    }

    static func write(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> IOResult {
        while true {
            // MSG_NOSIGNAL: a peer that went away must give EPIPE here, not kill the process with SIGPIPE.
            let n = Glibc.send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
            if n >= 0 { return .bytes(n) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case let code: return .failed(describe(code))
            }
        }
    }

    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
