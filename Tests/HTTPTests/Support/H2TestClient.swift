import Glibc
@testable import HTTP

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

/// A minimal HTTP/2 client on the HTTP module's client session (the one attestd-bench uses), for tests: blocking
/// over a plain socket (prior knowledge h2c), or driven by hand in memory (`outgoing()` / `incoming(_:)`).
final class H2TestClient {
    let socket: TestSocket?
    /// Set once at the end of `init` (it needs `self`), never nil after.
    private var session: HTTP2ClientSession!
    var responses: [Int32: H2TestResponse] = [:]
    /// Each request body still being sent: the bytes, how many went out, and whether its last frame ends the stream.
    private var requestBodies: [Int32: (body: [UInt8], offset: Int, endStream: Bool)] = [:]
    /// The header blocks submitted, kept while the session may still send them.
    private var headerBlocks: [HTTP2RequestHeaders] = []
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
        session = HTTP2ClientSession(delegate: self, reportsGoAway: true)
    }

    /// The server's SETTINGS value for `setting`, once its SETTINGS frame has arrived.
    func remoteSetting(_ setting: HTTP2Setting) -> UInt32 {
        session.remoteSetting(setting)
    }

    /// Submits a request; returns its stream id. With `endStream` false the body is sent and the stream left open,
    /// as by a client that has more to send.
    @discardableResult
    func request(
        method: String = "GET", path: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
        omitAuthority: Bool = false, endStream: Bool = true
    ) -> Int32 {
        var fields: [(name: String, value: String)] = [(":method", method), (":scheme", "http"), (":path", path)]
        if !omitAuthority { fields.append((":authority", "localhost")) }
        fields += headers.map { (name: $0.0, value: $0.1) }
        let block = HTTP2RequestHeaders(fields, contentLength: false)
        headerBlocks.append(block)
        let streamID = session.submitRequest(block, hasBody: body != nil)
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
            buffer.withUnsafeBytes { _ = session.receive(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        }
        return done()
    }

    /// Everything the session wants to send now.
    func outgoing() -> [UInt8] {
        var bytes: [UInt8] = []
        session.produce(into: &bytes)
        return bytes
    }

    /// Feeds bytes from the server to the session.
    func incoming(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { _ = session.receive($0) }
    }

    /// Queues `count` PING frames (a flood, for the frame-budget tests).
    func ping(count: Int) {
        for _ in 0..<count { session.submitPing() }
    }

    /// Queues SETTINGS_INITIAL_WINDOW_SIZE: with a window of a byte or two, the session's automatic WINDOW_UPDATEs
    /// open it again a byte or two at a time, a WINDOW_UPDATE trickle.
    func setInitialWindowSize(_ bytes: UInt32) {
        session.submitSettings([(.initialWindowSize, bytes)])
    }

    /// Opens the stream and connection flow-control windows wide, so that only TCP paces the server's output.
    func openWindowsWide() {
        setInitialWindowSize(1 << 30)
        session.submitWindowUpdate(stream: 0, increment: 1 << 30)
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

    /// Submits RST_STREAM(CANCEL) for a stream.
    func cancel(_ streamID: Int32) {
        session.cancel(stream: streamID)
    }
}

extension H2TestClient: HTTP2ClientDelegate {
    func body(stream streamID: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>) -> HTTP2BodyChunk {
        guard case (let body, var offset, let endStream)? = requestBodies[streamID] else {
            return .bytes(0, endsStream: true)
        }
        // All sent on a stream kept open: nothing more until the test ends it.
        if offset == body.count { return .later }
        let count = min(buffer.count, body.count - offset)
        body.withUnsafeBufferPointer { buffer.baseAddress!.update(from: $0.baseAddress! + offset, count: count) }
        offset += count
        if offset == body.count && endStream {
            requestBodies[streamID] = nil
            return .bytes(count, endsStream: true)
        }
        requestBodies[streamID] = (body, offset, endStream)
        return .bytes(count, endsStream: false)
    }

    func header(stream streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, isTrailer: Bool) {
        let name = String(decoding: name, as: UTF8.self)
        let value = String(decoding: value, as: UTF8.self)
        if isTrailer && responses[streamID]?.headers.isEmpty == false {
            responses[streamID]?.trailers[name] = value
        } else {
            responses[streamID]?.headers[name] = value
        }
    }

    func data(stream streamID: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        responses[streamID]?.body.append(contentsOf: bytes)
    }

    func closed(stream streamID: Int32, errorCode: UInt32) {
        responses[streamID]?.closed = true
        responses[streamID]?.errorCode = errorCode
    }

    func goAway(lastStreamID: Int32, errorCode: UInt32) {
        goAwayLastStreamIDs.append(lastStreamID)
        goAwayErrorCodes.append(errorCode)
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
