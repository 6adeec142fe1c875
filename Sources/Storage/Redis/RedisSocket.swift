import Glibc

/// A non-blocking TCP socket to Redis: connect, reads and writes wait with poll(2) up to a deadline.
final class RedisSocket: RedisTransport {
    let fd: Int32

    private init(fd: Int32) {
        self.fd = fd
    }

    deinit { close(fd) }

    /// Resolves `host` and connects to the first address that answers before `deadline`.
    static func connect(host: String, port: Int, deadline: ContinuousClock.Instant) throws(RedisFailure) -> RedisSocket {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var addresses: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &addresses)
        guard status == 0, let addresses else {
            throw .connection("cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(addresses) }
        var lastFailure = RedisFailure.connection("no address for \(host)")
        var next: UnsafeMutablePointer<addrinfo>? = addresses
        while let address = next {
            next = address.pointee.ai_next
            do throws(RedisFailure) {
                return try connect(to: address.pointee, deadline: deadline)
            } catch {
                lastFailure = error
            }
        }
        throw lastFailure
    }

    private static func connect(to address: addrinfo, deadline: ContinuousClock.Instant) throws(RedisFailure) -> RedisSocket {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let fd = socket(address.ai_family, type, 0)
        guard fd >= 0 else { throw failure(errno) }
        // Owned from here: closed by deinit on every path.
        let socket = RedisSocket(fd: fd)
        if Glibc.connect(fd, address.ai_addr, address.ai_addrlen) != 0 {
            guard errno == EINPROGRESS else { throw failure(errno) }
            try socket.wait(for: POLLOUT, until: deadline, doing: "connecting")
            var pending: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &pending, &length) == 0 else { throw failure(errno) }
            guard pending == 0 else { throw failure(pending) }
        }
        var on: Int32 = 1
        // Commands are small and answered at once: no Nagle delay; keepalive finds peers that vanished.
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, socklen_t(MemoryLayout<Int32>.size))
        return socket
    }

    func send(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant) throws(RedisFailure) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            // MSG_NOSIGNAL: a server that went away must give EPIPE here, not kill the process with SIGPIPE.
            let count = Glibc.send(fd, base + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if count >= 0 {
                offset += count
                continue
            }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: try wait(for: POLLOUT, until: deadline, doing: "writing a command")
            case let code: throw Self.failure(code)
            }
        }
    }

    func receive(into buffer: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant) throws(RedisFailure) -> Int {
        while true {
            let count = recv(fd, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return count }
            if count == 0 { throw .closed("the server closed the connection") }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: try wait(for: POLLIN, until: deadline, doing: "waiting for a reply")
            case let code: throw Self.failure(code)
            }
        }
    }

    /// Waits until the socket is ready for `events` (or has an error, which the next call reports).
    func wait(for events: Int32, until deadline: ContinuousClock.Instant, doing what: String) throws(RedisFailure) {
        while true {
            let remaining = (deadline - ContinuousClock.now).components
            // Rounded up, so a wait never ends just before the deadline and spins.
            let milliseconds = remaining.seconds * 1_000 + (remaining.attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
            guard milliseconds > 0 else { throw .connection("timed out \(what)") }
            var entry = pollfd(fd: fd, events: Int16(events), revents: 0)
            let ready = poll(&entry, 1, Int32(min(milliseconds, Int64(Int32.max))))
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw Self.failure(errno) }
        }
    }

    /// A reset or broken pipe means the server dropped the connection (a restart): the command most likely never
    /// ran, so the pool may retry it on a new connection. Anything else is a plain connection failure.
    static func failure(_ code: Int32) -> RedisFailure {
        let text = String(cString: strerror(code))
        return code == ECONNRESET || code == EPIPE ? .closed(text) : .connection(text)
    }
}
