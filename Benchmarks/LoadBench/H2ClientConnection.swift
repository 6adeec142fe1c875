import CShimsLinux
import Glibc
import HTTP
import TLS

/// One HTTP/2 client connection (h2c with prior knowledge, or TLS with ALPN h2): a non-blocking socket and the HTTP
/// module's client session, owned by one worker thread. Requests go out with `submit`; bytes move when the worker calls `flush` (writable) and
/// `readAvailable` (readable); finished streams are handed to `onComplete` after the session returns, never from
/// inside its delegate calls, so the worker may submit again without re-entering the session.
final class H2ClientConnection {
    /// A class, so that each header and data callback finds it by one dictionary lookup and changes it in place: as
    /// a struct, every `streams[id]` read or optional-chained write copied it (retaining each array and string in
    /// it), which was a seventh of the bench's CPU in a closed loop.
    final class StreamState {
        let job: Job
        let scheduled: UInt64
        var bodyOffset = 0
        var outcome = Outcome()

        init(job: Job, scheduled: UInt64) {
            self.job = job
            self.scheduled = scheduled
        }

        /// Keeps a piece of the response body when the job wants it, or when the answer is not a 200: REST error
        /// bodies are small, and a report can then say what went wrong.
        func keep(_ bytes: UnsafeBufferPointer<UInt8>) {
            if job.wantsBody || outcome.httpStatus != 200 { outcome.body.append(contentsOf: bytes) }
        }
    }

    let fd: Int32
    private let transport: ClientTransport
    /// Set once at the end of `init` (it needs `self`), never nil after.
    private var session: HTTP2ClientSession!
    private var streams: [Int32: StreamState] = [:]
    private var finished: [(Job, UInt64, Outcome)] = []
    private var output: [UInt8] = []
    private var outputStart = 0
    private(set) var isClosed = false
    /// True while unsent bytes wait for the socket to become writable.
    private(set) var wantsWritable = false
    var inFlight: Int { streams.count }

    /// Connects (blocking, to loopback or a LAN peer), runs the TLS handshake if `tls` is given, and makes the
    /// socket non-blocking.
    init(host: String, port: Int, tls: ClientTLS? = nil) throws(BenchError) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw BenchError("not an IPv4 address: \(host)") }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | cshims_SOCK_CLOEXEC, 0)
        guard fd >= 0 else { throw BenchError("socket: errno \(errno)") }
        self.fd = fd
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let code = errno
            close(fd)
            throw BenchError("connect \(host):\(port): \(String(cString: strerror(code)))")
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var connection: TLSClientConnection?
        if let tls {
            do throws(BenchError) {
                connection = try tls.handshake(fd: fd, host: host)
            } catch {
                close(fd)
                throw error
            }
        }
        transport = ClientTransport(fd: fd, tls: connection)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)

        // The session needs `self` as its delegate, so it is made once every other property is set.
        // A large connection window: the bench must never be the one that stalls the server.
        session = HTTP2ClientSession(
            delegate: self, settings: [(.enablePush, 0), (.initialWindowSize, 1 << 20)], connectionWindowBytes: 16 << 20)
    }

    deinit {
        transport.close()
    }

    /// The server's limit on concurrent streams (100 until its SETTINGS arrive, as nghttp2 assumes).
    var remoteMaxStreams: Int {
        Int(session.remoteSetting(.maxConcurrentStreams))
    }

    /// Queues one request; false if the session refused it (closed, or out of stream ids).
    func submit(_ job: Job, scheduled: UInt64, headers: HTTP2RequestHeaders) -> Bool {
        guard !isClosed else { return false }
        let id = session.submitRequest(headers, contentLength: job.body.count, hasBody: true)
        guard id > 0 else { return false }
        streams[id] = StreamState(job: job, scheduled: scheduled)
        return true
    }

    /// Sends what nghttp2 has to send, as far as the socket takes it.
    func flush() {
        guard !isClosed else { return }
        session.produce(into: &output, until: outputStart + 256 * 1024)
        sending: while outputStart < output.count {
            let result = output.withUnsafeBytes { bytes in transport.write(UnsafeRawBufferPointer(rebasing: bytes[outputStart...])) }
            switch result {
            case .moved(let count): outputStart += count
            case .wouldBlock: break sending
            case .closed:
                fail()
                return
            }
        }
        if outputStart == output.count {
            output.removeAll(keepingCapacity: true)
            outputStart = 0
        }
        wantsWritable = outputStart < output.count || session.wantsWrite
    }

    /// Reads everything the socket holds into nghttp2 (using `buffer` as scratch space).
    func readAvailable(buffer: UnsafeMutableRawBufferPointer) {
        guard !isClosed else { return }
        while true {
            switch transport.read(into: buffer) {
            case .moved(let count):
                if !session.receive(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) {
                    fail()
                    return
                }
                // In the clear, a short read drained the socket. TLS hands out a record at a time and may hold
                // decrypted bytes that epoll cannot see, so it reads on until it would block.
                if transport.tls == nil && count < buffer.count { return }
            case .wouldBlock:
                return
            case .closed:
                fail()
                return
            }
        }
    }

    /// Streams that finished since the last call.
    func takeFinished() -> [(Job, UInt64, Outcome)] {
        guard !finished.isEmpty else { return [] }
        defer { finished.removeAll(keepingCapacity: true) }
        return finished
    }

    /// Closes the connection; every open stream finishes as "connection lost".
    func fail() {
        guard !isClosed else { return }
        isClosed = true
        for (_, stream) in streams {
            var outcome = stream.outcome
            outcome.resetCode = Outcome.connectionLost
            finished.append((stream.job, stream.scheduled, outcome))
        }
        streams.removeAll()
        shutdown(fd, Int32(SHUT_RDWR))
    }

    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ text: StaticString) -> Bool {
        guard bytes.count == text.utf8CodeUnitCount, let start = bytes.baseAddress else { return false }
        return memcmp(start, text.utf8Start, bytes.count) == 0
    }

    private static func integer(_ digits: UnsafeBufferPointer<UInt8>) -> Int {
        var value = 0
        for digit in digits {
            guard digit >= 48 && digit <= 57 else { return -1 }
            value = value * 10 + Int(digit - 48)
        }
        return value
    }
}

extension H2ClientConnection: HTTP2ClientDelegate {
    // Called only from inside the session's receive / produce.

    func body(stream id: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>) -> HTTP2BodyChunk {
        guard let stream = streams[id] else { return .bytes(0, endsStream: true) }
        let count = min(buffer.count, stream.job.body.count - stream.bodyOffset)
        stream.job.body.withUnsafeBufferPointer { buffer.baseAddress!.update(from: $0.baseAddress! + stream.bodyOffset, count: count) }
        stream.bodyOffset += count
        return .bytes(count, endsStream: stream.bodyOffset == stream.job.body.count)
    }

    func header(stream id: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, isTrailer: Bool) {
        guard let stream = streams[id] else { return }
        if Self.equals(name, ":status") {
            stream.outcome.httpStatus = Self.integer(value)
        } else if Self.equals(name, "grpc-status") {
            stream.outcome.grpcStatus = Self.integer(value)
        } else if Self.equals(name, "grpc-message") {
            stream.outcome.message = String(decoding: value, as: UTF8.self)
        }
    }

    func data(stream id: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        streams[id]?.keep(bytes)
    }

    func closed(stream id: Int32, errorCode: UInt32) {
        guard let stream = streams.removeValue(forKey: id) else { return }
        var outcome = stream.outcome
        outcome.resetCode = errorCode
        finished.append((stream.job, stream.scheduled, outcome))
    }
}
