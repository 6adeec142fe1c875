import CNghttp2
import Glibc

/// What a test client saw on one stream.
struct H2TestResponse {
    var headers: [String: String] = [:]
    var trailers: [String: String] = [:]
    var body: [UInt8] = []
    var closed = false
    /// The RST_STREAM / close error code (0 = NO_ERROR).
    var errorCode: UInt32 = 0
    var status: Int { Int(headers[":status"] ?? "") ?? 0 }
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A minimal HTTP/2 client over nghttp2, for tests: blocking over a plain socket (prior knowledge h2c), or
/// driven by hand in memory (`outgoing()` / `incoming(_:)`).
final class H2TestClient {
    let socket: TestSocket?
    private var session: OpaquePointer?
    var responses: [Int32: H2TestResponse] = [:]
    /// Each request body still being sent: the bytes, how many went out, and whether its last frame ends the stream.
    private var requestBodies: [Int32: (body: [UInt8], offset: Int, endStream: Bool)] = [:]
    var goAwayLastStreamIDs: [Int32] = []
    var goAwayErrorCodes: [UInt32] = []
    var peerClosed = false

    convenience init(port: Int) throws {
        self.init(socket: try TestSocket(port: port))
    }

    /// A client over a socket set up by the test (e.g. with a tiny receive buffer).
    convenience init(over socket: TestSocket) {
        self.init(socket: socket)
    }

    /// A client with no socket: move bytes with `outgoing()` and `incoming(_:)`.
    convenience init() {
        self.init(socket: nil)
    }

    private init(socket: TestSocket?) {
        self.socket = socket
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks, clientOnHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, clientOnData)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, clientOnStreamClose)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, clientOnFrame)
        nghttp2_session_client_new(&session, callbacks, Unmanaged.passUnretained(self).toOpaque())
        nghttp2_submit_settings(session, 0, nil, 0)
    }

    deinit { nghttp2_session_del(session) }

    /// The server's SETTINGS value for `id`, once its SETTINGS frame has arrived.
    func remoteSetting(_ id: nghttp2_settings_id) -> UInt32 {
        nghttp2_session_get_remote_settings(session, id)
    }

    /// Submits a request; returns its stream id. With `endStream` false the body is sent and the stream left open,
    /// as by a client that has more to send.
    @discardableResult
    func request(
        method: String = "GET", path: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
        omitAuthority: Bool = false, endStream: Bool = true
    ) -> Int32 {
        var fields: [(String, String)] = [(":method", method), (":scheme", "http"), (":path", path)]
        if !omitAuthority { fields.append((":authority", "localhost")) }
        fields += headers
        var arena: [UInt8] = []
        var spans: [(Int, Int, Int, Int)] = []
        for (name, value) in fields {
            let nameStart = arena.count
            arena += Array(name.utf8)
            let valueStart = arena.count
            arena += Array(value.utf8)
            spans.append((nameStart, valueStart - nameStart, valueStart, arena.count - valueStart))
        }
        let streamID: Int32 = arena.withUnsafeMutableBufferPointer { bytes in
            let nva = spans.map { span in
                nghttp2_nv(
                    name: bytes.baseAddress! + span.0, value: bytes.baseAddress! + span.2, namelen: span.1,
                    valuelen: span.3, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            }
            if body != nil {
                var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: clientReadBody)
                return nghttp2_submit_request(session, nil, nva, nva.count, &provider, nil)
            }
            return nghttp2_submit_request(session, nil, nva, nva.count, nil, nil)
        }
        if let body { requestBodies[streamID] = (body, 0, endStream) }
        responses[streamID] = H2TestResponse()
        return streamID
    }

    /// Exchanges frames until `done` is true, the peer closes, or about `seconds` pass. Returns `done()`.
    @discardableResult
    func run(seconds: Double = 5, until done: () -> Bool) -> Bool {
        let deadline = Double(DispatchTimeShim.nanoseconds()) / 1e9 + seconds
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !done() && !peerClosed && Double(DispatchTimeShim.nanoseconds()) / 1e9 < deadline {
            let pending = outgoing()
            if !pending.isEmpty { socket?.send(pending) }
            if done() { break }
            guard let socket else { break }
            var poller = pollfd(fd: socket.fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(socket.fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 {
                peerClosed = true
                break
            }
            buffer.withUnsafeBytes {
                _ = nghttp2_session_mem_recv(session, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), count)
            }
        }
        return done()
    }

    /// Everything nghttp2 wants to send now.
    func outgoing() -> [UInt8] {
        var bytes: [UInt8] = []
        while nghttp2_session_want_write(session) != 0 {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            guard count > 0, let data else { break }
            bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
        }
        return bytes
    }

    /// Feeds bytes from the server to nghttp2.
    func incoming(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        bytes.withUnsafeBufferPointer { _ = nghttp2_session_mem_recv(session, $0.baseAddress, $0.count) }
    }

    /// Submits RST_STREAM(CANCEL) for a stream.
    /// Queues `count` PING frames (a flood, for the frame-budget tests).
    func ping(count: Int) {
        for _ in 0..<count { nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil) }
    }

    /// Queues SETTINGS_INITIAL_WINDOW_SIZE: with a window of a byte or two, nghttp2's automatic WINDOW_UPDATEs open
    /// it again a byte or two at a time, a WINDOW_UPDATE trickle.
    func setInitialWindowSize(_ bytes: UInt32) {
        var entry = nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: bytes)
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entry, 1)
    }

    /// Opens the stream and connection flow-control windows wide, so that only TCP paces the server's output.
    func openWindowsWide() {
        setInitialWindowSize(1 << 30)
        nghttp2_submit_window_update(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, 1 << 30)
    }

    /// Sends what is queued, then reads at most `limit` bytes from the socket, once, and feeds them to the
    /// session. Returns false once the server has closed the connection.
    func readSlowly(limit: Int) -> Bool {
        guard let socket, !peerClosed else { return false }
        let pending = outgoing()
        if !pending.isEmpty { socket.send(pending) }
        let bytes = socket.receiveSome(limit: limit)
        if bytes.isEmpty {
            peerClosed = true
            return false
        }
        incoming(bytes)
        return true
    }

    func cancel(_ streamID: Int32) {
        nghttp2_submit_rst_stream(session, 0, streamID, NGHTTP2_CANCEL.rawValue)
    }

    fileprivate func readBody(streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int, flags: UnsafeMutablePointer<UInt32>) -> Int {
        guard case (let body, var offset, let endStream)? = requestBodies[streamID] else {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            return 0
        }
        // All sent on a stream kept open: nothing more until the test ends it.
        if offset == body.count { return Int(NGHTTP2_ERR_DEFERRED.rawValue) }
        let count = min(length, body.count - offset)
        body.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress! + offset, count: count) }
        offset += count
        if offset == body.count && endStream {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            requestBodies[streamID] = nil
        } else {
            requestBodies[streamID] = (body, offset, endStream)
        }
        return count
    }

    fileprivate func onHeader(streamID: Int32, category: nghttp2_headers_category, name: String, value: String) {
        if category == NGHTTP2_HCAT_HEADERS && responses[streamID]?.headers.isEmpty == false {
            responses[streamID]?.trailers[name] = value
        } else {
            responses[streamID]?.headers[name] = value
        }
    }

    fileprivate func onData(streamID: Int32, _ data: UnsafeBufferPointer<UInt8>) {
        responses[streamID]?.body.append(contentsOf: data)
    }

    fileprivate func onClose(streamID: Int32, errorCode: UInt32) {
        responses[streamID]?.closed = true
        responses[streamID]?.errorCode = errorCode
    }
}

/// CLOCK_MONOTONIC for the client's own timeouts (the module's clock is exercised by the server).
enum DispatchTimeShim {
    static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}

private func client(_ userData: UnsafeMutableRawPointer?) -> H2TestClient {
    Unmanaged<H2TestClient>.fromOpaque(userData!).takeUnretainedValue()
}

private func clientOnHeader(
    _: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ name: UnsafePointer<UInt8>?, _ nameLength: Int,
    _ value: UnsafePointer<UInt8>?, _ valueLength: Int, _: UInt8, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
    client(userData).onHeader(
        streamID: frame.pointee.hd.stream_id, category: frame.pointee.headers.cat,
        name: String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self),
        value: String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self))
    return 0
}

private func clientOnData(
    _: OpaquePointer?, _: UInt8, _ streamID: Int32, _ data: UnsafePointer<UInt8>?, _ length: Int,
    _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    client(userData).onData(streamID: streamID, UnsafeBufferPointer(start: data, count: length))
    return 0
}

private func clientOnStreamClose(_: OpaquePointer?, _ streamID: Int32, _ errorCode: UInt32, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    client(userData).onClose(streamID: streamID, errorCode: errorCode)
    return 0
}

private func clientOnFrame(_: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_GOAWAY.rawValue) else { return 0 }
    client(userData).goAwayLastStreamIDs.append(frame.pointee.goaway.last_stream_id)
    client(userData).goAwayErrorCodes.append(frame.pointee.goaway.error_code)
    return 0
}

private func clientReadBody(
    _: OpaquePointer?, _ streamID: Int32, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int,
    _ flags: UnsafeMutablePointer<UInt32>?, _: UnsafeMutablePointer<nghttp2_data_source>?,
    _ userData: UnsafeMutableRawPointer?
) -> Int {
    client(userData).readBody(streamID: streamID, into: buffer!, length: length, flags: flags!)
}
