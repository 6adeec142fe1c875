import Basics
import CHTTPParser

/// The server side of one HTTP/1.1 connection, parsed by http_parser: keep-alive, Content-Length and chunked
/// bodies, and pipelining (responses go out in request order, whatever order the handler answers in).
final class HTTP1Session {
    /// `unowned(unsafe)`: the connection owns this session and outlives it.
    unowned(unsafe) let connection: Connection
    private let parser: UnsafeMutablePointer<http_parser>
    private let limits: HTTPServerConfiguration

    // The request being parsed.
    private var url: [UInt8] = []
    private var field: [UInt8] = []
    private var value: [UInt8] = []
    private var valueStarted = false
    private var headers: [(name: String, value: String)] = []
    private var headerBytes = 0
    private var body: [UInt8] = []
    private var bodyTooLarge = false
    private var headerOverflow = false
    private var dispatchedEarly = false
    private(set) var messageInProgress = false

    /// Requests parsed during the current `receive`, handed to the handler once the parser has returned.
    private var ready: [(HTTPRequest, UInt64)] = []
    /// Responses in request order; `firstSequence` is the sequence number of `slots[0]`.
    private var slots: [HTTP1ResponseSlot] = []
    private var firstSequence: UInt64 = 0
    private var nextSequence: UInt64 = 0
    /// Input held back while the connection has too much unanswered or unsent work.
    private var stash: [UInt8] = []
    private var pausedForBackPressure = false
    /// Paused to let the loop serve other connections; reading resumes in the next loop turn (`endYield`).
    private var yielded = false
    /// No more requests will be read (error, `Connection: close`, body too large, upgrade, shutdown).
    private var stopped = false
    private var shuttingDown = false
    /// The peer sends nothing more (`endInput`): the last owed response closes the connection.
    private var inputEnded = false
    private var pauseReason = PauseReason.none

    private enum PauseReason { case none, nextRequest, stop }

    init(connection: Connection) {
        self.connection = connection
        self.limits = connection.context.configuration
        parser = .allocate(capacity: 1)
        http_parser_init(parser, HTTP_REQUEST)
        parser.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit { parser.deallocate() }

    /// Whether the connection should read more input now.
    var wantsInput: Bool { !stopped && !pausedForBackPressure }

    /// Requests read to their end (or rejected) so far: the request-timeout check's measure of progress.
    var requestsCompleted: UInt64 { nextSequence }

    /// Nothing received but unanswered, and no request half-read.
    var isIdle: Bool { slots.isEmpty && !messageInProgress }

    /// A complete request is waiting for its response (a half-read request does not count: a client that stalls
    /// mid-request is closed by the idle timeout).
    var awaitsResponse: Bool { !slots.isEmpty }

    /// Pipelined requests wait while more than this many bytes of earlier answers are unsent (or the connection's
    /// whole output cap, if smaller): a client that reads its answers keeps the buffer near empty, and one that
    /// does not (a slow reader) gets no more work done for it than fits here.
    static let pipelinedOutputLimit = 64 * 1024

    private var mustPause: Bool {
        slots.count >= Int(limits.maxConcurrentStreams)
            || connection.pendingOutputBytes > min(limits.maxBufferedOutputBytes, Self.pipelinedOutputLimit)
    }

    // MARK: Input

    func receive(_ bytes: UnsafeRawBufferPointer) {
        guard !stopped else { return }
        if pausedForBackPressure {
            stash.append(contentsOf: bytes)
            return
        }
        parse(bytes)
        dispatchReady()
    }

    /// Requests one parse may hand to the handler before the connection yields the loop until its next turn: a
    /// client pipelining thousands of cheap requests that are answered on the loop (metrics, health) would
    /// otherwise hold it for as long as they all take, and every other connection of the loop would wait.
    static let requestsPerTurn = 16

    /// Parses stashed input once the connection has drained below its limits; returns whether it did.
    func resumeIfPossible() -> Bool {
        guard pausedForBackPressure, !yielded, !stopped, !mustPause else { return false }
        pausedForBackPressure = false
        let pending = stash
        stash = []
        pending.withUnsafeBytes { parse($0) }
        dispatchReady()
        return true
    }

    /// The loop turn after a yield has begun: stashed input may be parsed again.
    func endYield() { yielded = false }

    private func parse(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self) else { return }
        var offset = 0
        var requests = 0
        while offset < bytes.count && !stopped {
            let parsed = withUnsafePointer(to: HTTP1ParserSettings.shared.settings) { settings in
                http_parser_execute(parser, settings, base + offset, bytes.count - offset)
            }
            offset += parsed
            let error = parser.pointee.http_errno
            if error == HPE_PAUSED.rawValue {
                http_parser_pause(parser, 0)
                let reason = pauseReason
                pauseReason = .none
                if reason == .stop {
                    stopped = true
                    return
                }
                // One request at a time: the handler may answer inline, so the output it produces is known before
                // the next pipelined request is parsed. This also means `Upgrade` (e.g. h2c) is ignored, as RFC 9110
                // allows: the request is answered over HTTP/1.1 and the connection stays keep-alive.
                dispatchReady()
                requests += 1
                let mustYield = requests >= Self.requestsPerTurn && offset < bytes.count
                if (mustPause || mustYield) && !stopped {
                    pausedForBackPressure = true
                    stash.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset...]))
                    if !mustPause {
                        yielded = true
                        connection.resumeNextTurn()
                    }
                    return
                }
                continue
            }
            if error != HPE_OK.rawValue {
                reject(status: headerOverflow ? 431 : 400)
                return
            }
            if parsed == 0 { return }
        }
    }

    /// A malformed or oversized request: answer with `status` after the responses already owed, then close.
    private func reject(status: Int) {
        stopped = true
        if messageInProgress {
            if !dispatchedEarly { connection.context.openStreams.subtract(1, ordering: .relaxed) }
            messageInProgress = false
        }
        connection.logger.debug("rejecting an HTTP/1.1 request", [("peer", connection.remoteAddress), ("status", String(status))])
        slots.append(HTTP1ResponseSlot(response: HTTPResponse(status: status), closeAfter: true, isHead: false, counted: false))
        nextSequence += 1
        writeReadyResponses()
    }

    private func dispatchReady() {
        guard !ready.isEmpty else { return }
        let batch = ready
        ready.removeAll(keepingCapacity: true)
        let handler = connection.context.handler
        for (request, sequence) in batch {
            handler.handle(request, responder: HTTPResponder(loop: connection.loop, connectionID: connection.id, token: sequence),
                           turn: connection.loop.currentTurn)
        }
    }

    // MARK: Output

    /// Stores a handler's response and writes every response that is now next in line.
    func deliver(_ response: HTTPResponse, sequence: UInt64) {
        guard sequence >= firstSequence, sequence - firstSequence < UInt64(slots.count) else { return }
        let index = Int(sequence - firstSequence)
        guard slots[index].response == nil else { return }
        slots[index].response = response
        writeReadyResponses()
    }

    private func writeReadyResponses() {
        var written = 0
        while written < slots.count, let response = slots[written].response {
            let slot = slots[written]
            written += 1
            if slot.counted { connection.context.openStreams.subtract(1, ordering: .relaxed) }
            let close = slot.closeAfter || shuttingDown || (inputEnded && written == slots.count)
            HTTP1ResponseWriter.write(response, omitBody: slot.isHead, close: close, into: &connection.output)
            if close {
                for rest in slots[written...] where rest.counted {
                    connection.context.openStreams.subtract(1, ordering: .relaxed)
                }
                slots.removeAll()
                stopped = true
                connection.closeWhenFlushed()
                return
            }
        }
        slots.removeFirst(written)
        firstSequence += UInt64(written)
    }

    // MARK: Lifecycle

    /// The next response says `Connection: close`; an idle connection closes now.
    func beginGracefulShutdown() {
        shuttingDown = true
        if isIdle {
            stopped = true
            connection.closeWhenFlushed()
        }
    }

    /// The peer has half-closed (its end of file, or close_notify) while responses are owed (`awaitsResponse`):
    /// read nothing more; answer the requests already read, the last with `Connection: close`. A request half-read
    /// is dropped with the connection.
    func endInput() {
        inputEnded = true
        stopped = true
    }

    func connectionClosed() {
        var counted = slots.filter(\.counted).count
        if messageInProgress && !dispatchedEarly { counted += 1 }
        connection.context.openStreams.subtract(counted, ordering: .relaxed)
        slots.removeAll()
        messageInProgress = false
        stopped = true
    }

    // MARK: Parser callbacks (from HTTP1ParserSettings)

    func onMessageBegin() -> Int32 {
        messageInProgress = true
        connection.context.openStreams.add(1, ordering: .relaxed)
        url.removeAll(keepingCapacity: true)
        field.removeAll(keepingCapacity: true)
        value.removeAll(keepingCapacity: true)
        valueStarted = false
        headers = []
        headerBytes = 0
        body = []
        bodyTooLarge = false
        dispatchedEarly = false
        return 0
    }

    func onURL(_ bytes: UnsafeRawBufferPointer) -> Int32 {
        url.append(contentsOf: bytes)
        return countHeaderBytes(bytes.count)
    }

    func onHeaderField(_ bytes: UnsafeRawBufferPointer) -> Int32 {
        if valueStarted { commitHeader() }
        if headers.count >= limits.maxHeaderFields {
            headerOverflow = true
            return 1
        }
        field.append(contentsOf: bytes)
        return countHeaderBytes(bytes.count)
    }

    func onHeaderValue(_ bytes: UnsafeRawBufferPointer) -> Int32 {
        valueStarted = true
        value.append(contentsOf: bytes)
        return countHeaderBytes(bytes.count)
    }

    private func countHeaderBytes(_ count: Int) -> Int32 {
        headerBytes += count
        if headerBytes > limits.maxHeaderListBytes {
            headerOverflow = true
            return 1
        }
        return 0
    }

    private func commitHeader() {
        headers.append((
            name: String(decoding: field, as: UTF8.self).lowercased(),
            value: String(decoding: value, as: UTF8.self)
        ))
        field.removeAll(keepingCapacity: true)
        value.removeAll(keepingCapacity: true)
        valueStarted = false
    }

    func onHeadersComplete() -> Int32 {
        if valueStarted || !field.isEmpty { commitHeader() }
        let length = parser.pointee.content_length
        if length != UInt64.max && length > UInt64(limits.maxRequestBodyBytes) {
            bodyTooLarge = true
            dispatchEarly()
        } else if slots.isEmpty, ready.isEmpty,
            headers.contains(where: { $0.name == "expect" && $0.value.lowercased() == "100-continue" })
        {
            // Nothing is owed before this request, so the interim response cannot overtake another one.
            connection.output.append(contentsOf: "HTTP/1.1 100 Continue\r\n\r\n".utf8)
            connection.loop.markDirty(connection)
        }
        return 0
    }

    func onBody(_ bytes: UnsafeRawBufferPointer) -> Int32 {
        guard !bodyTooLarge else { return 0 }
        if body.count + bytes.count > limits.maxRequestBodyBytes {
            bodyTooLarge = true
            body = []
            dispatchEarly()
            return 0
        }
        body.append(contentsOf: bytes)
        return 0
    }

    func onMessageComplete() -> Int32 {
        messageInProgress = false
        let keepAlive = http_should_keep_alive(parser) != 0
        if !dispatchedEarly {
            enqueue(closeAfter: !keepAlive)
        }
        if !keepAlive || bodyTooLarge || shuttingDown {
            pauseReason = .stop
            http_parser_pause(parser, 1)
        } else {
            pauseReason = .nextRequest
            http_parser_pause(parser, 1)
        }
        return 0
    }

    /// The body is over the limit: the handler sees the request now, with an empty body; the connection closes
    /// after the response, and the rest of the body is read and dropped until then. The request's place in the
    /// open-stream gauge moves from the message in progress to its response slot, as on completion.
    private func dispatchEarly() {
        dispatchedEarly = true
        enqueue(closeAfter: true)
    }

    private func enqueue(closeAfter: Bool) {
        let method = String(cString: http_method_str(http_method(rawValue: parser.pointee.method)))
        let request = HTTPRequest(
            method: method, path: String(decoding: url, as: UTF8.self),
            authority: headers.first { $0.name == "host" }?.value, headers: HTTPHeaders(lowercased: headers),
            body: body, bodyTooLarge: bodyTooLarge, version: .http1_1, isTLS: connection.tls != nil,
            remoteAddress: connection.remoteAddress, listenerIndex: connection.listenerIndex,
            clientCertificate: connection.tls?.clientCertificate, receivedAtNanos: MonotonicClock.nanoseconds())
        body = []
        let sequence = nextSequence
        nextSequence += 1
        slots.append(HTTP1ResponseSlot(response: nil, closeAfter: closeAfter, isHead: method == "HEAD", counted: true))
        ready.append((request, sequence))
    }
}

/// A place in the response order of a pipelined HTTP/1.1 connection.
struct HTTP1ResponseSlot {
    var response: HTTPResponse?
    var closeAfter: Bool
    var isHead: Bool
    /// Whether this request counts in the server's open-stream gauge.
    var counted: Bool
}
