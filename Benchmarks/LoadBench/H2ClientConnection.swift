import CNghttp2
import CShims
import Glibc

/// One HTTP/2 client connection (h2c with prior knowledge, or TLS with ALPN h2): a non-blocking socket and an nghttp2
/// client session, owned by one worker thread. Requests go out with `submit`; bytes move when the worker calls `flush` (writable) and
/// `readAvailable` (readable); finished streams are handed to `onComplete` after nghttp2 returns, never from inside
/// its callbacks, so the worker may submit again without re-entering the session.
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
    private var session: OpaquePointer?
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
        var ssl: OpaquePointer?
        if let tls {
            do throws(BenchError) {
                ssl = try tls.handshake(fd: fd, host: host)
            } catch {
                close(fd)
                throw error
            }
        }
        transport = ClientTransport(fd: fd, ssl: ssl)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)

        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onDataChunk)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClose)
        nghttp2_session_client_new(&session, callbacks, Unmanaged.passUnretained(self).toOpaque())
        // A large connection window: the bench must never be the one that stalls the server.
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 1 << 20),
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, 16 << 20)
    }

    deinit {
        nghttp2_session_del(session)
        transport.close()
    }

    /// The server's limit on concurrent streams (100 until its SETTINGS arrive, as nghttp2 assumes).
    var remoteMaxStreams: Int {
        Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
    }

    /// Queues one request; false if the session refused it (closed, or out of stream ids).
    func submit(_ job: Job, scheduled: UInt64, headers: RequestHeaders) -> Bool {
        guard !isClosed else { return false }
        var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: onReadBody)
        let id = headers.withFields(contentLength: job.body.count) { nva, count in
            nghttp2_submit_request(session, nil, nva, count, &provider, nil)
        }
        guard id > 0 else { return false }
        streams[id] = StreamState(job: job, scheduled: scheduled)
        return true
    }

    /// Sends what nghttp2 has to send, as far as the socket takes it.
    func flush() {
        guard !isClosed else { return }
        while nghttp2_session_want_write(session) != 0 {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            guard count > 0, let data else { break }
            output.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
            if output.count - outputStart > 256 * 1024 { break }
        }
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
        wantsWritable = outputStart < output.count || nghttp2_session_want_write(session) != 0
    }

    /// Reads everything the socket holds into nghttp2 (using `buffer` as scratch space).
    func readAvailable(buffer: UnsafeMutableRawBufferPointer) {
        guard !isClosed else { return }
        while true {
            switch transport.read(into: buffer) {
            case .moved(let count):
                let consumed = nghttp2_session_mem_recv(session, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), count)
                if consumed < 0 {
                    fail()
                    return
                }
                // In the clear, a short read drained the socket. TLS hands out a record at a time and may hold
                // decrypted bytes that epoll cannot see, so it reads on until it would block.
                if transport.ssl == nil && count < buffer.count { return }
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

    // MARK: nghttp2 callbacks (called only from inside mem_recv / mem_send)

    fileprivate func readBody(_ id: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int, flags: UnsafeMutablePointer<UInt32>) -> Int {
        guard let stream = streams[id] else {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            return 0
        }
        let count = min(length, stream.job.body.count - stream.bodyOffset)
        stream.job.body.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress! + stream.bodyOffset, count: count) }
        if stream.bodyOffset + count == stream.job.body.count {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
        }
        stream.bodyOffset += count
        return count
    }

    fileprivate func header(_ id: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard let stream = streams[id] else { return }
        if Self.equals(name, ":status") {
            stream.outcome.httpStatus = Self.integer(value)
        } else if Self.equals(name, "grpc-status") {
            stream.outcome.grpcStatus = Self.integer(value)
        } else if Self.equals(name, "grpc-message") {
            stream.outcome.message = String(decoding: value, as: UTF8.self)
        }
    }

    fileprivate func data(_ id: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        streams[id]?.keep(bytes)
    }

    fileprivate func closed(_ id: Int32, errorCode: UInt32) {
        guard let stream = streams.removeValue(forKey: id) else { return }
        var outcome = stream.outcome
        outcome.resetCode = errorCode
        finished.append((stream.job, stream.scheduled, outcome))
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

private func connection(_ userData: UnsafeMutableRawPointer?) -> H2ClientConnection {
    Unmanaged<H2ClientConnection>.fromOpaque(userData!).takeUnretainedValue()
}

private func onHeader(
    _: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ name: UnsafePointer<UInt8>?, _ nameLength: Int,
    _ value: UnsafePointer<UInt8>?, _ valueLength: Int, _: UInt8, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
    connection(userData).header(
        frame.pointee.hd.stream_id, name: UnsafeBufferPointer(start: name, count: nameLength),
        value: UnsafeBufferPointer(start: value, count: valueLength))
    return 0
}

private func onDataChunk(
    _: OpaquePointer?, _: UInt8, _ id: Int32, _ data: UnsafePointer<UInt8>?, _ length: Int,
    _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    connection(userData).data(id, UnsafeBufferPointer(start: data, count: length))
    return 0
}

private func onStreamClose(_: OpaquePointer?, _ id: Int32, _ errorCode: UInt32, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    connection(userData).closed(id, errorCode: errorCode)
    return 0
}

private func onReadBody(
    _: OpaquePointer?, _ id: Int32, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int,
    _ flags: UnsafeMutablePointer<UInt32>?, _: UnsafeMutablePointer<nghttp2_data_source>?,
    _ userData: UnsafeMutableRawPointer?
) -> Int {
    connection(userData).readBody(id, into: buffer!, length: length, flags: flags!)
}
