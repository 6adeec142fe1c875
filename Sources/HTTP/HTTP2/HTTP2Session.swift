import Basics
import CNghttp2
import Observability

/// The server side of one HTTP/2 connection, over nghttp2's memory API: bytes in through `receive`, frames out
/// through `produceOutput`. Requests are handed to the handler after `nghttp2_session_mem_recv` returns, never from
/// inside an nghttp2 callback, so a handler that answers inline never re-enters the session. Only the connection's
/// event loop thread touches it: the collections the callbacks change for every frame skip the runtime's
/// exclusivity checks (`@exclusivity(unchecked)`), which cost a thread-local lookup each.
final class HTTP2Session {
    /// The client connection preface (RFC 9113 §3.4).
    static let clientPreface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    /// `unowned(unsafe)`: the connection owns this session and outlives it; a checked reference would cost a
    /// refcount round trip on every callback.
    unowned(unsafe) let connection: Connection
    private var session: OpaquePointer?
    @exclusivity(unchecked) private var streams: [Int32: HTTP2Stream] = [:]
    /// The stream of the previous callback: nghttp2 reports a stream's headers one by one, so this saves a
    /// dictionary lookup per header.
    @exclusivity(unchecked) private var recentStream: HTTP2Stream?
    /// Streams whose request became complete (or must be answered early) during the current `mem_recv`.
    @exclusivity(unchecked) private var completed: [HTTP2Stream] = []
    @exclusivity(unchecked) private var dispatching: [HTTP2Stream] = []
    private var failed = false
    /// The GOAWAY error code to send after a fatal error, written by hand since nghttp2 may not send it.
    private var fatalGoAway: UInt32?
    /// Frames that cost work without carrying a request are paid for from this budget (see
    /// ``HTTPServerConfiguration/http2FrameBurst``); running dry ends the connection with ENHANCE_YOUR_CALM.
    private var frameBudget: TokenBucket
    /// The peer was cut off (GOAWAY ENHANCE_YOUR_CALM or PROTOCOL_ERROR): nothing more it sends is served.
    private(set) var cutOff = false
    /// The highest stream id the client has opened, and the last few streams the server reset: a HEADERS frame
    /// for an older id is a reused id (nghttp2, which forgets closed streams, would silently ignore it), unless
    /// it is trailers racing a reset of ours.
    private var highestStreamID: Int32 = 0
    private var recentlyReset: [Int32] = []
    /// Responses whose body has not been handed to nghttp2 in full (flow control may be holding it back).
    private var sendingResponses = 0
    /// DATA frames sent so far: the write-stall check's measure of progress for bodies held back by flow control.
    private(set) var dataFramesSent: UInt64 = 0
    /// Requests handed to the handler (or answered early) so far: the request-timeout check's measure of progress.
    private(set) var requestsCompleted: UInt64 = 0
    private var shutdown = Shutdown.none
    private let limits: HTTPServerConfiguration
    /// Where nghttp2's frame buffer and stream table are (kept by the session's allocator), for
    /// ``releaseIdleMemory()``.
    private let memory = UnsafeMutablePointer<NGHTTP2Memory.SessionRecord>.allocate(capacity: 1)
    /// The last `nghttp2_session_mem_send` returned nothing: no frame is in flight.
    private var sendDrained = false

    private enum Shutdown {
        case none
        /// The GOAWAY notice went out; the final GOAWAY follows after `ticksLeft` timer ticks.
        case noticeSent(ticksLeft: Int)
        case finalGoAwaySent
    }

    init(connection: Connection) {
        self.connection = connection
        self.limits = connection.context.configuration
        self.frameBudget = TokenBucket(
            capacity: Double(limits.http2FrameBurst), refillPerSecond: Double(limits.http2FrameRefillPerSecond),
            now: MonotonicClock.nanoseconds())
        var options: OpaquePointer?
        nghttp2_option_new(&options)
        // nghttp2's own RST_STREAM limit (CVE-2023-44487) answers INTERNAL_ERROR; the frame budget counts resets
        // too and answers ENHANCE_YOUR_CALM first, so nghttp2's stays only as a looser backstop.
        nghttp2_option_set_stream_reset_rate_limit(options, 10_000, 1_000)
        memory.initialize(to: NGHTTP2Memory.SessionRecord(creating: true))
        var allocator = NGHTTP2Memory.allocator(recordingInto: memory)
        let created = nghttp2_session_server_new3(
            &session, NGHTTP2Callbacks.shared.pointer, Unmanaged.passUnretained(self).toOpaque(), options, &allocator)
        memory.pointee.creating = false
        nghttp2_option_del(options)
        if created != 0 {
            failed = true
            connection.closeWhenFlushed()
            connection.logger.error("nghttp2_session_server_new failed", [("error", errorText(created))])
            return
        }
        var settings = [
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: limits.maxConcurrentStreams),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue),
                value: UInt32(clamping: limits.maxHeaderListBytes)),
            // RFC 9218: no RFC 7540 priority tree, so nghttp2 keeps no closed streams around for it.
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_NO_RFC7540_PRIORITIES.rawValue), value: 1),
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
    }

    deinit {
        nghttp2_session_del(session)
        memory.deallocate()
    }

    // MARK: Input

    /// Whether nghttp2 still wants input (false after a fatal error or once GOAWAY has ended the session).
    var wantsInput: Bool { !failed && nghttp2_session_want_read(session) != 0 }

    /// Feeds received bytes to nghttp2, then hands completed requests to the handler.
    func receive(_ bytes: UnsafeRawBufferPointer) {
        guard !failed, let base = bytes.baseAddress else { return }
        // Fed a few KiB at a time, so that once the peer is cut off the rest of a read is not decoded (an HPACK
        // bomb or a rapid-reset burst costs far more to process than to send).
        var offset = 0
        while offset < bytes.count, !failed, !cutOff {
            let count = min(Self.receiveChunk, bytes.count - offset)
            feed(base.advanced(by: offset).assumingMemoryBound(to: UInt8.self), count: count)
            offset += count
        }
        dispatchCompleted()
    }

    private static let receiveChunk = 4 * 1024

    private func feed(_ bytes: UnsafePointer<UInt8>, count: Int) {
        let consumed = nghttp2_session_mem_recv(session, bytes, count)
        if consumed < 0 {
            failed = true
            connection.closeWhenFlushed()
            let code = Self.goAwayCode(forFatalError: Int32(consumed))
            fatalGoAway = code
            if code == NGHTTP2_ENHANCE_YOUR_CALM.rawValue {
                connection.context.abuse.calmedConnections.add(1, ordering: .relaxed)
            }
            connection.logger.info(
                "HTTP/2 session failed", [("peer", connection.remoteAddress), ("error", errorText(Int32(consumed)))])
        }
    }

    /// The GOAWAY code for a fatal `mem_recv` error: floods are answered ENHANCE_YOUR_CALM, a bad preface
    /// PROTOCOL_ERROR, anything else INTERNAL_ERROR.
    static func goAwayCode(forFatalError error: Int32) -> UInt32 {
        switch error {
        case NGHTTP2_ERR_FLOODED.rawValue, NGHTTP2_ERR_TOO_MANY_CONTINUATIONS.rawValue:
            NGHTTP2_ENHANCE_YOUR_CALM.rawValue
        case NGHTTP2_ERR_BAD_CLIENT_MAGIC.rawValue:
            NGHTTP2_PROTOCOL_ERROR.rawValue
        default:
            NGHTTP2_INTERNAL_ERROR.rawValue
        }
    }

    private func dispatchCompleted() {
        guard !completed.isEmpty else { return }
        guard !cutOff, !failed else {
            completed.removeAll(keepingCapacity: true)
            return
        }
        // Swapped out, not copied: a handler answering inline may not touch `completed`, but the swap keeps both
        // arrays' storage for the next batch.
        requestsCompleted &+= UInt64(completed.count)
        swap(&completed, &dispatching)
        defer { dispatching.removeAll(keepingCapacity: true) }
        let now = MonotonicClock.nanoseconds()
        let handler = connection.context.handler
        for stream in dispatching {
            // Reset by the client in the same read (rapid reset): no one is waiting for the answer.
            if stream.closed { continue }
            if stream.headersTooLarge {
                deliver(HTTPResponse(status: 431), streamID: stream.id)
                continue
            }
            let headers = HTTPHeaders(lowercased: stream.headers)
            // RFC 9113 §8.3.1: a client may send Host instead of :authority.
            let authority = stream.authority ?? headers["host"]
            let request = HTTPRequest(
                method: stream.method, path: stream.path, authority: authority, headers: headers, body: stream.body, bodyTooLarge: stream.bodyTooLarge,
                version: .http2, isTLS: connection.tls != nil, remoteAddress: connection.remoteAddress,
                listenerIndex: connection.listenerIndex, clientCertificate: connection.tls?.clientCertificate,
                receivedAtNanos: now)
            stream.headers = []
            stream.body = []
            let responder = HTTPResponder(
                loop: connection.loop, connectionID: connection.id, token: UInt64(UInt32(bitPattern: stream.id)))
            handler.handle(request, responder: responder, turn: connection.loop.currentTurn)
        }
    }

    // MARK: Output

    /// Appends nghttp2's pending frames to `output`, stopping once about `limit` bytes were added.
    func produceOutput(into output: inout [UInt8], limit: Int) {
        guard session != nil else { return }
        defer {
            if failed, let code = fatalGoAway {
                fatalGoAway = nil
                appendGoAwayFrame(code, to: &output)
            }
        }
        var added = 0
        while added < limit {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            if count < 0 {
                failed = true
                connection.closeWhenFlushed()
                connection.logger.debug("nghttp2_session_mem_send failed", [("error", errorText(Int32(count)))])
                return
            }
            sendDrained = count == 0
            guard count > 0, let data else { return }
            // The pointer is only valid until the next nghttp2 call: copy now.
            output.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
            added += count
        }
    }

    /// A GOAWAY frame (RFC 9113 §6.8) built by hand: after a fatal error nghttp2's own queue is not to be trusted.
    private func appendGoAwayFrame(_ code: UInt32, to output: inout [UInt8]) {
        let last = UInt32(bitPattern: nghttp2_session_get_last_proc_stream_id(session)) & 0x7fff_ffff
        output.append(contentsOf: [0, 0, 8, UInt8(NGHTTP2_GOAWAY.rawValue), 0, 0, 0, 0, 0])
        for word in [last, code] {
            output.append(contentsOf: [UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16),
                                       UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word)])
        }
    }

    /// Nothing left to read or write: the session has ended (GOAWAY and no open streams, or a fatal error).
    var isFinished: Bool {
        failed || (nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0)
    }

    /// Submits a handler's response; dropped if the stream has closed meanwhile (client reset or went away).
    func deliver(_ response: HTTPResponse, streamID: Int32) {
        guard !failed, let stream = streams[streamID], !stream.responded else { return }
        stream.responded = true
        if !stream.requestEnded { stream.resetAfterResponse = true }
        stream.trailers = response.trailers
        let result: Int32
        if response.body.isEmpty && response.trailers == nil {
            result = HeaderBlock.with(status: response.status, response.headers) { fields, count in
                nghttp2_submit_response(session, streamID, fields, count, nil)
            }
        } else {
            stream.responseBody = response.body
            stream.sendingBody = true
            stream.bodySubmittedAt = MonotonicClock.nanoseconds()
            sendingResponses += 1
            var provider = nghttp2_data_provider(
                source: nghttp2_data_source(ptr: nil), read_callback: readResponseBody)
            result = HeaderBlock.with(status: response.status, response.headers) { fields, count in
                nghttp2_submit_response(session, streamID, fields, count, &provider)
            }
        }
        if result != 0 {
            connection.logger.debug("nghttp2_submit_response failed", [("error", errorText(result))])
        }
    }

    // MARK: Lifecycle

    /// Some stream's request was handed to the handler and is still waiting for its response (streams whose
    /// request the client never finished do not count: a client that stalls is closed by the idle timeout).
    var awaitsResponse: Bool { streams.values.contains { $0.dispatched && !$0.responded } }

    /// First of the two GOAWAYs: tells the client to stop opening streams, while ones in flight still arrive.
    func beginGracefulShutdown() {
        guard case .none = shutdown, !failed else { return }
        nghttp2_submit_shutdown_notice(session)
        shutdown = .noticeSent(ticksLeft: 2)
    }

    /// The final GOAWAY, naming the last stream processed, a couple of ticks after the notice (about one round
    /// trip for streams the client opened before it saw the notice). Returns whether a frame was submitted.
    func sendFinalGoAwayIfDue() -> Bool {
        guard case .noticeSent(let ticksLeft) = shutdown else { return false }
        guard ticksLeft <= 1 else {
            shutdown = .noticeSent(ticksLeft: ticksLeft - 1)
            return false
        }
        shutdown = .finalGoAwaySent
        submitGoAway()
        return true
    }

    /// No stream is open: no request arriving, no response owed.
    var hasNoStreams: Bool { streams.isEmpty }

    /// Gives back the pages of nghttp2's outbound frame buffer when the session is quiet (no stream open and no
    /// frame in flight), and those of its stream table that read all zeros. Returns the bytes given back. The next
    /// frame or stream faults a page back in, so this is for a connection that has been idle a while, not after
    /// every response (``Connection/checkTimeouts(now:)``).
    @discardableResult
    func releaseIdleMemory() -> Int {
        guard session != nil, !failed, streams.isEmpty, sendDrained else { return 0 }
        return NGHTTP2Memory.releaseFrameBuffer(of: memory) + NGHTTP2Memory.releaseZeroPages(of: memory)
    }

    /// The stream table's place and size (tests).
    var streamTable: (start: UnsafeMutableRawPointer, bytes: Int)? {
        memory.pointee.zeroedBlock.map { ($0, memory.pointee.zeroedBlockBytes) }
    }

    /// The frame buffer's place and size (tests).
    var frameBuffer: (start: UnsafeMutableRawPointer, bytes: Int)? {
        memory.pointee.frameBuffer.map { ($0, memory.pointee.frameBufferBytes) }
    }

    /// Whether some stream's request has begun but not ended (headers or body still to come).
    var hasIncompleteRequest: Bool { streams.values.contains { !$0.dispatched } }

    /// A request has been arriving for longer than the request timeout: GOAWAY(ENHANCE_YOUR_CALM). Returns false
    /// if the session had already ended.
    func goAwayBecauseRequestTooSlow() -> Bool {
        guard !failed, !cutOff else { return false }
        cutOff(NGHTTP2_ENHANCE_YOUR_CALM, reason: "a request arriving too slowly")
        return true
    }

    /// Whether some response body has not gone out in full yet (perhaps held back by the peer's flow control).
    var isSendingResponses: Bool { sendingResponses > 0 }

    /// When the oldest response body still being sent was handed to nghttp2 (``MonotonicClock``); nil when none is.
    var oldestResponseBodySince: UInt64? {
        guard sendingResponses > 0 else { return nil }
        return streams.values.lazy.filter(\.sendingBody).map(\.bodySubmittedAt).min()
    }

    /// The peer took a response body more slowly than the response-drain timeout allows (a WINDOW_UPDATE
    /// trickle): GOAWAY(ENHANCE_YOUR_CALM). Returns false if the session had already ended.
    func goAwayBecauseResponsesCrawl() -> Bool {
        guard !failed, !cutOff else { return false }
        cutOff(NGHTTP2_ENHANCE_YOUR_CALM, reason: "responses taken too slowly (flow-control window opened a little at a time)")
        return true
    }

    /// The peer reads its responses from the socket more slowly than the response-drain timeout allows (a reader
    /// taking a byte at a time): GOAWAY(ENHANCE_YOUR_CALM). Returns false if the session had already ended.
    func goAwayBecauseReadTooSlowly() -> Bool {
        guard !failed, !cutOff else { return false }
        cutOff(NGHTTP2_ENHANCE_YOUR_CALM, reason: "responses read from the socket too slowly")
        return true
    }

    /// The peer let responses sit unsent past the write-stall timeout: GOAWAY(ENHANCE_YOUR_CALM). Returns false
    /// if the session had already ended.
    func goAwayBecauseStalled() -> Bool {
        guard !failed, !cutOff else { return false }
        cutOff(NGHTTP2_ENHANCE_YOUR_CALM, reason: "responses stalled by the peer")
        return true
    }

    /// Pays for a frame that carries no request from the frame budget; a peer that runs it dry gets
    /// GOAWAY(ENHANCE_YOUR_CALM), after which nothing it sends is served.
    func spendFrameBudget(_ cost: Double, for frame: StaticString) {
        guard !cutOff, !failed else { return }
        if frameBudget.take(cost, now: MonotonicClock.nanoseconds()) { return }
        connection.context.abuse.calmedConnections.add(1, ordering: .relaxed)
        cutOff(NGHTTP2_ENHANCE_YOUR_CALM, reason: "frame budget exhausted by \(frame)")
    }

    /// A HEADERS frame is starting on `streamID`: one for an id below the highest seen, on a stream that is
    /// neither open nor recently reset by the server, reuses an id, a connection error (RFC 9113 §5.1.1).
    func onHeadersFrameBegins(streamID: Int32) {
        guard !cutOff, !failed else { return }
        if streamID > highestStreamID {
            highestStreamID = streamID
            return
        }
        guard streams[streamID] == nil, !recentlyReset.contains(streamID) else { return }
        cutOff(NGHTTP2_PROTOCOL_ERROR, reason: "HEADERS on stream \(streamID), an id already used")
    }

    /// The server reset `streamID`; the client may still send trailers on it for a round trip.
    func onResetSent(streamID: Int32) {
        if recentlyReset.count == 32 { recentlyReset.removeFirst() }
        recentlyReset.append(streamID)
    }

    private func cutOff(_ code: nghttp2_error_code, reason: String) {
        cutOff = true
        shutdown = .finalGoAwaySent
        connection.logger.info(
            "HTTP/2 peer cut off with GOAWAY", [("peer", connection.remoteAddress), ("code", String(code.rawValue)),
                                                 ("reason", reason)])
        // Sends GOAWAY naming the last stream processed; nghttp2 then stops reading and ends the session once it
        // has gone out.
        let result = nghttp2_session_terminate_session(session, code.rawValue)
        if result != 0 {
            failed = true
            connection.closeWhenFlushed()
        }
    }

    func goAwayBecauseIdle() {
        shutdown = .finalGoAwaySent
        submitGoAway()
    }

    private func submitGoAway() {
        let last = nghttp2_session_get_last_proc_stream_id(session)
        nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), last, NGHTTP2_NO_ERROR.rawValue, nil, 0)
    }

    /// The socket is gone: streams still open no longer count.
    func connectionClosed() {
        connection.context.openStreams.subtract(streams.count, ordering: .relaxed)
        streams.removeAll()
        sendingResponses = 0
        recentStream = nil
        completed.removeAll()
    }

    private func errorText(_ code: Int32) -> String { String(cString: nghttp2_strerror(code)) }

    // MARK: Callback bodies (called by the C callbacks in HTTP2Session+Callbacks.swift)

    func onBeginHeaders(streamID: Int32) {
        guard streams[streamID] == nil else { return }
        let stream = HTTP2Stream(id: streamID)
        streams[streamID] = stream
        recentStream = stream
        connection.context.openStreams.add(1, ordering: .relaxed)
    }

    private func stream(_ id: Int32) -> HTTP2Stream? {
        if let recent = recentStream, recent.id == id { return recent }
        let found = streams[id]
        recentStream = found
        return found
    }

    /// Takes one header field of a request; returns false when the rest of the block is not worth decoding, after
    /// resetting the stream with ENHANCE_YOUR_CALM (the caller then tells nghttp2 to skip the block).
    func onHeader(streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let stream = stream(streamID), !stream.dispatched else { return true }
        stream.headerListBytes += name.count + value.count + 32
        stream.headerFields += 1
        if stream.headersTooLarge {
            // Far beyond the limits: an HPACK bomb (a few bytes referencing a large table entry again and again)
            // would have nghttp2 validate every copy, thousands of times the bytes received. No honest client
            // sends four times the header list it was told is the limit: the stream is reset, the peer cut off,
            // and nghttp2 skips the rest of the block without validating it.
            guard stream.headerListBytes > 4 * limits.maxHeaderListBytes
                || stream.headerFields > 4 * limits.maxHeaderFields
            else { return true }
            nghttp2_submit_rst_stream(
                session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_ENHANCE_YOUR_CALM.rawValue)
            if !cutOff {
                connection.context.abuse.calmedConnections.add(1, ordering: .relaxed)
                cutOff(NGHTTP2_ENHANCE_YOUR_CALM, reason: "a header block far over the limit (HPACK bomb)")
            }
            return false
        }
        if stream.headerListBytes > limits.maxHeaderListBytes || stream.headerFields > limits.maxHeaderFields {
            stream.headersTooLarge = true
            stream.headers = []
            // An HPACK bomb or a header flood: paid for dearly from the frame budget, however the stream ends
            // (431, or a reset by nghttp2 when the block is malformed as well).
            // Each costs a quarter of the burst: a client that got it wrong is told (431) a few times; one that
            // keeps at it is cut off after four.
            spendFrameBudget(frameBudget.capacity / 4, for: "header blocks over the limit")
            return true
        }
        if name.count > 1 && name[0] == UInt8(ascii: ":") {
            let text = String(decoding: value, as: UTF8.self)
            // nghttp2 has validated the pseudo-headers, so their length and second byte tell them apart.
            switch (name.count, name[1]) {
            case (5, UInt8(ascii: "p")): stream.path = text
            case (7, UInt8(ascii: "m")): stream.method = text
            case (10, UInt8(ascii: "a")): stream.authority = text
            default: break  // :scheme, :protocol
            }
            return true
        }
        // Room for a gRPC client's usual fields at once, instead of growing through 1, 2, 4 and 8 (three allocations).
        if stream.headers.capacity == 0 { stream.headers.reserveCapacity(8) }
        stream.headers.append((name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self)))
        return true
    }

    func onHeadersReceived(streamID: Int32, endStream: Bool) {
        guard let stream = stream(streamID) else { return }
        if endStream { stream.requestEnded = true }
        guard !stream.dispatched else { return }
        if stream.headersTooLarge || endStream {
            stream.dispatched = true
            completed.append(stream)
        }
    }

    func onData(streamID: Int32, _ data: UnsafeBufferPointer<UInt8>) {
        guard let stream = stream(streamID), !stream.dispatched else { return }
        if stream.body.count + data.count > limits.maxRequestBodyBytes {
            refuseAsTooLarge(stream)
            return
        }
        stream.body.append(contentsOf: data)
    }

    /// A DATA frame left the request open: the handler may tell from the body's first bytes that the body will be
    /// over the limit (a gRPC prefix announcing 2 GiB), and then the request is refused now, not after the request
    /// timeout. Frames that end the request, as a unary call's usually does, never ask.
    func onBodyContinues(streamID: Int32) {
        guard let stream = stream(streamID), !stream.dispatched, !stream.bodySizeAnnounced else { return }
        guard let announced = connection.context.handler.announcedBodySize(
            headers: HTTPHeaders(lowercased: stream.headers), bodyPrefix: stream.body)
        else { return }
        stream.bodySizeAnnounced = true
        if announced > limits.maxRequestBodyBytes { refuseAsTooLarge(stream) }
    }

    /// Answers now with an empty body and ``HTTPRequest/bodyTooLarge``; the rest of the body is discarded
    /// (nghttp2 still credits the flow control window) and the stream is reset after the response.
    private func refuseAsTooLarge(_ stream: HTTP2Stream) {
        stream.bodyTooLarge = true
        stream.body = []
        stream.dispatched = true
        completed.append(stream)
    }

    func onDataEnded(streamID: Int32) {
        guard let stream = stream(streamID) else { return }
        stream.requestEnded = true
        guard !stream.dispatched else { return }
        stream.dispatched = true
        completed.append(stream)
    }

    func onStreamClosed(streamID: Int32) {
        if recentStream?.id == streamID { recentStream = nil }
        if let stream = streams.removeValue(forKey: streamID) {
            stream.closed = true
            if stream.sendingBody {
                stream.sendingBody = false
                sendingResponses -= 1
            }
            connection.context.openStreams.subtract(1, ordering: .relaxed)
        }
    }

    func onDataSent() { dataFramesSent &+= 1 }

    func onResponseEnded(streamID: Int32) {
        // Useful work done: a well-behaved connection earns back the frames that went with it.
        frameBudget.give(4)
        guard let stream = streams[streamID], stream.resetAfterResponse, !stream.requestEnded else { return }
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_NO_ERROR.rawValue)
    }

    /// Copies the next piece of a response body into nghttp2's frame buffer; at the end, submits trailers if any.
    func readBody(
        streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, capacity: Int,
        flags: UnsafeMutablePointer<UInt32>
    ) -> Int {
        guard let stream = streams[streamID] else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
        let count = min(capacity, stream.responseBody.count - stream.responseOffset)
        if count > 0 {
            stream.responseBody.withUnsafeBufferPointer { body in
                buffer.update(from: body.baseAddress! + stream.responseOffset, count: count)
            }
            stream.responseOffset += count
        }
        if stream.responseOffset == stream.responseBody.count {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            if stream.sendingBody {
                stream.sendingBody = false
                sendingResponses -= 1
            }
            stream.responseBody = []
            stream.responseOffset = 0
            if let trailers = stream.trailers {
                flags.pointee |= NGHTTP2_DATA_FLAG_NO_END_STREAM.rawValue
                let result = HeaderBlock.with(status: nil, trailers) { fields, fieldCount in
                    nghttp2_submit_trailer(session, streamID, fields, fieldCount)
                }
                if result != 0 {
                    connection.logger.debug("nghttp2_submit_trailer failed", [("error", errorText(result))])
                }
            }
        }
        return count
    }
}
