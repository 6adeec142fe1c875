import Basics
import CShimsLinux
import Glibc
import Observability

/// One accepted socket: its optional TLS stream, the protocol session that parses it, and its unsent output.
/// Belongs to one loop thread for its whole life.
final class Connection {
    let id: UInt64
    let fd: Int32
    /// `unowned(unsafe)`: a loop closes every connection before it exits and outlives them all.
    unowned(unsafe) let loop: EventLoop
    let tls: TLSStream?
    /// Set for connections without a socket (tests pipe bytes in through `receive(memory:)` and read them here).
    let memoryOutput: MemoryOutput?
    let remoteAddress: String
    /// The position of the listener that accepted this connection (``HTTPRequest/listenerIndex``).
    let listenerIndex: Int
    /// The peer's host when it was counted toward ``HTTPServerConfiguration/maxConnectionsPerAddress``.
    private let countedHost: String?
    var isDirty = false
    /// Where the loop keeps this connection in its timeout scan (see `EventLoop.remove`); -1 once removed.
    var scanIndex = -1
    /// Where the connection is in its life.
    private var state = State.open
    /// When the connection last moved bytes in either direction (``MonotonicClock``).
    private(set) var lastActivity: UInt64
    private let acceptedAt: UInt64
    /// Successful socket writes so far: with HTTP/2 DATA frames sent, the measure of progress for the write-stall
    /// check.
    private var writeProgress: UInt64 = 0
    /// The progress seen when output was first found owed and not moving, and when.
    private var stallMark: (progress: UInt64, since: UInt64)?
    /// Requests completed when a request was first found half-arrived, and when.
    private var requestMark: (completed: UInt64, since: UInt64)?
    /// How long a connection lingers after its last word, and how long a slow reader that was cut off has to take
    /// its GOAWAY.
    private static let lingerNanoseconds: UInt64 = 2_000_000_000
    /// When each stretch of output was produced: the slow-reader check (see `checkOutputDrain`).
    private var outputAges = OutputAges()

    /// Bytes produced but not yet accepted by the socket: `output[outputStart...]`.
    var output: [UInt8] = []
    private var outputStart = 0
    /// HTTP/2: the index in `output` of a frame's first byte, at or before `outputStart`, so that unsent frames can
    /// be told apart from the one the socket is partway through (see `dropUnsentFrames`).
    private var frameCursor = 0
    var pendingOutputBytes: Int { output.count - outputStart }

    private var registeredEvents: UInt32 = cshims_EPOLLIN
    private let maxBufferedOutputBytes: Int
    private var session = Session.detecting([])

    /// The HTTP/2 session, once the connection speaks HTTP/2 (tests).
    var http2Session: HTTP2Session? {
        if case .http2(let http2) = session { return http2 }
        return nil
    }

    /// The life of a connection: open, then (usually) closing once its last output is written, then lingering
    /// with its write side shut, then closed. A connection may close from any state (an error, a timeout, the
    /// peer going away); nothing leaves `closed`.
    private enum State {
        /// Reading requests and writing answers.
        case open
        /// No more input is read; closes once the pending output has been written (a fatal protocol error,
        /// `Connection: close`, a GOAWAY). `cutOffAt`: a slow reader cut off with a GOAWAY queued behind what it had
        /// not yet read is reset at this time if it has not taken the GOAWAY by then (it is not expected to).
        case closingWhenFlushed(cutOffAt: UInt64?)
        /// Has said its last word: the write side is shut and input is read and dropped until the peer closes or
        /// `until` passes, so that a peer still sending reads our GOAWAY (or 400) instead of losing it to the
        /// reset that closing with unread input would send. A response that arrives now is dropped.
        case lingering(until: UInt64)
        case closed
    }

    /// Whether the socket has been closed.
    var isClosed: Bool {
        if case .closed = state { true } else { false }
    }

    /// Close as soon as the pending output has been written (fatal protocol error, `Connection: close`...); no more
    /// input is read. With `cutOffAt`, reset at that time if the output has not been taken by then.
    func closeWhenFlushed(cutOffAt deadline: UInt64? = nil) {
        switch state {
        case .open: state = .closingWhenFlushed(cutOffAt: deadline)
        case .closingWhenFlushed(let earlier): state = .closingWhenFlushed(cutOffAt: deadline ?? earlier)
        case .lingering, .closed: break
        }
    }

    private enum Session {
        /// Cleartext (or TLS without ALPN): waiting for enough bytes to tell the HTTP/2 preface from HTTP/1.x.
        case detecting([UInt8])
        case http1(HTTP1Session)
        case http2(HTTP2Session)
    }

    var context: ServerContext { loop.context }
    var logger: Logger { loop.logger }

    init(
        id: UInt64, fd: Int32, loop: EventLoop, tls: TLSStream?, remoteAddress: String, listenerIndex: Int = 0,
        countedHost: String? = nil, memoryOutput: MemoryOutput? = nil
    ) {
        self.listenerIndex = listenerIndex
        self.id = id
        self.fd = fd
        self.loop = loop
        self.tls = tls
        self.memoryOutput = memoryOutput
        self.remoteAddress = remoteAddress
        self.countedHost = countedHost
        self.lastActivity = MonotonicClock.nanoseconds()
        self.acceptedAt = lastActivity
        self.maxBufferedOutputBytes = loop.context.configuration.maxBufferedOutputBytes
        loop.context.openConnections.add(1, ordering: .relaxed)
    }

    // MARK: Events

    func handle(events: UInt32) {
        switch state {
        case .open, .closingWhenFlushed: break
        case .lingering:
            discardInput()
            return
        case .closed: return
        }
        if events & (cshims_EPOLLERR | cshims_EPOLLHUP) != 0 && !wantsToRead {
            // Both directions are gone (or an error is pending) while reading is paused: nothing can be answered,
            // and level-triggered epoll would report it on every turn.
            close()
            return
        }
        if events & (cshims_EPOLLIN | cshims_EPOLLERR | cshims_EPOLLHUP) != 0 {
            readAvailable()
        }
        if events & cshims_EPOLLOUT != 0, !isClosed {
            if tls?.readWantsWrite == true { readAvailable() }
            loop.markDirty(self)
        }
    }

    private var wantsToRead: Bool {
        guard case .open = state, pendingOutputBytes <= maxBufferedOutputBytes else { return false }
        switch session {
        case .detecting: return true
        case .http1(let http1): return http1.wantsInput
        case .http2(let http2): return http2.wantsInput
        }
    }

    private func readAvailable() {
        // A few reads per event: level-triggered epoll comes back for the rest, so one busy peer cannot starve others.
        reading: for _ in 0..<4 {
            guard !isClosed, wantsToRead else { break reading }
            let result = tls?.read(into: loop.readBuffer) ?? Posix.read(fd, into: loop.readBuffer)
            switch result {
            case .bytes(let count):
                lastActivity = MonotonicClock.nanoseconds()
                receive(UnsafeRawBufferPointer(rebasing: loop.readBuffer[0..<count]))
                // A short plain read means the socket is drained; TLS reads stop at record boundaries instead.
                if tls == nil && count < loop.readBuffer.count { break reading }
            case .wouldBlock:
                break reading
            case .endOfFile:
                peerFinishedSending()
                return
            case .failed(let reason):
                logger.debug("connection read failed", [("peer", remoteAddress), ("error", reason)])
                close()
                return
            }
        }
        if !isClosed { loop.markDirty(self) }
    }

    /// The peer sends nothing more: a FIN, or TLS close_notify. An HTTP/1.1 client may half-close once its requests
    /// are out and still read the answers, so those it is owed go out, the last with `Connection: close`, and the
    /// connection then closes. With nothing owed (and over HTTP/2) it closes now.
    private func peerFinishedSending() {
        guard case .http1(let http1) = session, http1.awaitsResponse else {
            close()
            return
        }
        http1.endInput()
        loop.markDirty(self)
    }

    /// Feeds bytes as if read from the socket (connections with a `memoryOutput`).
    func receive(memory bytes: [UInt8]) {
        guard !isClosed else { return }
        lastActivity = MonotonicClock.nanoseconds()
        bytes.withUnsafeBytes { receive($0) }
        if !isClosed { loop.markDirty(self) }
    }

    private func receive(_ bytes: UnsafeRawBufferPointer) {
        switch session {
        case .http1(let http1): http1.receive(bytes)
        case .http2(let http2): http2.receive(bytes)
        case .detecting(var buffered):
            buffered.append(contentsOf: bytes)
            guard let isHTTP2 = detectProtocol(buffered) else {
                session = .detecting(buffered)
                return
            }
            if isHTTP2 {
                let http2 = HTTP2Session(connection: self)
                session = .http2(http2)
                buffered.withUnsafeBytes { http2.receive($0) }
            } else {
                let http1 = HTTP1Session(connection: self)
                session = .http1(http1)
                buffered.withUnsafeBytes { http1.receive($0) }
            }
        }
    }

    /// true for HTTP/2, false for HTTP/1.x, nil while the bytes so far are a strict prefix of the HTTP/2 preface.
    private func detectProtocol(_ bytes: [UInt8]) -> Bool? {
        switch tls?.negotiatedProtocol {
        case "h2": return true
        case "http/1.1": return false
        default: break
        }
        let preface = HTTP2Session.clientPreface
        let common = min(bytes.count, preface.count)
        guard bytes[0..<common].elementsEqual(preface[0..<common]) else { return false }
        return common == preface.count ? true : nil
    }

    /// Continues a pipelined HTTP/1.1 connection that yielded the loop (see ``HTTP1Session/requestsPerTurn``) in
    /// the next loop turn, after the events of other connections.
    func resumeNextTurn() {
        let loop = self.loop
        let id = self.id
        loop.execute { loop.connection(id)?.resumeAfterYield() }
    }

    private func resumeAfterYield() {
        guard !isClosed, case .http1(let http1) = session else { return }
        http1.endYield()
        // The flush parses the stashed requests (as far as back-pressure allows) and renews the interest in input.
        loop.markDirty(self)
    }

    // MARK: Responses

    /// Delivers a handler's response for `token` (HTTP/2 stream id or HTTP/1.1 request sequence number).
    func deliver(_ response: HTTPResponse, token: UInt64) {
        guard !isClosed else { return }
        switch session {
        case .detecting: return
        case .http1(let http1): http1.deliver(response, sequence: token)
        case .http2(let http2): http2.deliver(response, streamID: Int32(truncatingIfNeeded: token))
        }
        loop.markDirty(self)
    }

    // MARK: Writing

    /// Produces pending protocol output, writes as much as the socket takes, then decides what to wait for next.
    func flush() {
        switch state {
        case .open, .closingWhenFlushed: break
        // A lingering connection has said its last word; a response that arrives now is dropped.
        case .lingering, .closed: return
        }
        let cap = maxBufferedOutputBytes
        if case .http1(let http1) = session { _ = http1.resumeIfPossible() }
        writing: while true {
            if case .http2(let http2) = session, pendingOutputBytes < cap {
                http2.produceOutput(into: &output, limit: cap - pendingOutputBytes)
            }
            if pendingOutputBytes == 0 {
                // A pipelined HTTP/1.1 connection held back by back-pressure continues once its output drained.
                guard !isClosed, case .http1(let http1) = session, http1.resumeIfPossible() else { break writing }
                continue
            }
            // One clock read per write: when new output was produced (for the slow-reader check), and when bytes
            // last moved (for the idle timeout).
            let now = MonotonicClock.nanoseconds()
            let owed = outputAges.written &+ UInt64(pendingOutputBytes)
            if owed > outputAges.produced { outputAges.produced(through: owed, now: now) }
            let result = output.withUnsafeBytes { all in
                let pending = UnsafeRawBufferPointer(rebasing: all[outputStart...])
                if let memoryOutput {
                    memoryOutput.bytes.append(contentsOf: pending)
                    return IOResult.bytes(pending.count)
                }
                return tls?.write(pending) ?? Posix.write(fd, pending)
            }
            switch result {
            case .bytes(let count):
                lastActivity = now
                writeProgress &+= 1
                outputAges.wrote(count)
                outputStart += count
                if outputStart == output.count {
                    // Keep a modest buffer for the next turn; give back the memory of a burst.
                    if output.capacity > 256 * 1024 { output = [] } else { output.removeAll(keepingCapacity: true) }
                    outputStart = 0
                    frameCursor = 0
                }
            case .wouldBlock:
                break writing
            case .endOfFile:
                close()
                return
            case .failed(let reason):
                logger.debug("connection write failed", [("peer", remoteAddress), ("error", reason)])
                close()
                return
            }
        }
        if outputStart > 64 * 1024 { compactOutput() }
        context.notePendingOutput(pendingOutputBytes)
        if shouldClose {
            closeGracefully()
            return
        }
        updateInterest()
    }

    /// Gives back the memory of written output. HTTP/2 keeps the frame the socket is partway through, so that
    /// `frameCursor` still points at a frame's first byte.
    private func compactOutput() {
        var keepFrom = outputStart
        if case .http2 = session {
            keepFrom = frameStart(atOrBefore: outputStart)
            guard keepFrom > 0 else { return }
        }
        output.removeSubrange(0..<keepFrom)
        outputStart -= keepFrom
        frameCursor = 0
    }

    /// The first byte of the HTTP/2 frame that holds `output[index]` (or ends just before it), walking frame
    /// headers from `frameCursor`; moves the cursor there.
    private func frameStart(atOrBefore index: Int) -> Int {
        while frameCursor + 9 <= output.count {
            let next = frameCursor + 9 + Self.frameLength(output, at: frameCursor)
            guard next <= index else { break }
            frameCursor = next
        }
        return frameCursor
    }

    /// The payload length in the HTTP/2 frame header at `output[index...]` (RFC 9113 §4.1).
    private static func frameLength(_ output: [UInt8], at index: Int) -> Int {
        Int(output[index]) << 16 | Int(output[index + 1]) << 8 | Int(output[index + 2])
    }

    /// HTTP/2: drops the whole frames the socket has not begun to take, keeping the one it is partway through (and,
    /// over TLS, at least the 16 KiB record OpenSSL may be retrying: a retried write must offer as
    /// much as before), so that a GOAWAY queued now follows a complete frame. Returns the bytes dropped.
    private func dropUnsentFrames() -> Int {
        guard case .http2 = session, pendingOutputBytes > 0 else { return 0 }
        let keepThrough = tls == nil ? outputStart : outputStart + TLSStream.maxRecordPlaintext
        var end = frameStart(atOrBefore: outputStart)
        while end < keepThrough {
            guard end + 9 <= output.count else { return 0 }
            end += 9 + Self.frameLength(output, at: end)
        }
        guard end < output.count else { return 0 }
        let dropped = output.count - end
        output.removeSubrange(end...)
        outputAges.dropped(after: outputAges.written &+ UInt64(pendingOutputBytes))
        return dropped
    }

    private var shouldClose: Bool {
        guard pendingOutputBytes == 0 else { return false }
        if case .closingWhenFlushed = state { return true }
        if case .http2(let http2) = session { return http2.isFinished }
        return false
    }

    private func updateInterest() {
        var desired: UInt32 = 0
        if wantsToRead { desired |= cshims_EPOLLIN }
        if pendingOutputBytes > 0 || tls?.readWantsWrite == true { desired |= cshims_EPOLLOUT }
        if desired != registeredEvents {
            registeredEvents = desired
            loop.setInterest(self, events: desired)
        }
    }

    // MARK: Lifecycle

    /// Graceful shutdown has begun: HTTP/2 sends a GOAWAY notice, HTTP/1.1 closes when idle.
    func beginGracefulShutdown() {
        switch session {
        case .detecting: closeWhenFlushed()
        case .http1(let http1): http1.beginGracefulShutdown()
        case .http2(let http2): http2.beginGracefulShutdown()
        }
        loop.markDirty(self)
    }

    /// Called on every timer tick while draining: HTTP/2 follows its notice with the final GOAWAY.
    func shutdownTick() {
        if case .http2(let http2) = session, http2.sendFinalGoAwayIfDue() { loop.markDirty(self) }
    }

    /// No bytes moved for the idle timeout: close unless a handler still owes a response (HTTP/2: GOAWAY first).
    /// A peer that stopped reading while output is pending, or stalled halfway through a request, is closed too.
    func closeBecauseIdle() {
        if pendingOutputBytes > 0 {
            logger.debug("closing a connection whose peer stopped reading", [("peer", remoteAddress)])
            close()
            return
        }
        switch session {
        case .detecting:
            close()
        case .http1(let http1):
            if !http1.awaitsResponse { close() }
        case .http2(let http2):
            if !http2.awaitsResponse {
                http2.goAwayBecauseIdle()
                closeWhenFlushed()
                loop.markDirty(self)
            }
        }
    }

    /// A connection quiet this long gives back memory it only needs while busy. A second: a connection in steady
    /// use (a request a second or more) never pays the page fault that writing to a given-back page costs.
    static let quietNanoseconds: UInt64 = 1_000_000_000
    /// `lastActivity` when the connection last gave back its memory: once per quiet spell.
    private var trimmedAt: UInt64 = 0

    /// An idle HTTP/2 connection's share of a server holding thousands: the pages nghttp2 wrote its last frames
    /// to (up to 16 KiB, at least one page for every connection that has sent anything), its stream table's page
    /// once every stream has closed, and the output buffer kept for the next turn.
    private func trimIdleMemory(_ http2: HTTP2Session) {
        var released = http2.releaseIdleMemory()
        if output.isEmpty {
            released += output.capacity
            output = []
        }
        if released > 0 { context.idleMemoryReleasedBytes.add(released, ordering: .relaxed) }
    }

    /// Called about once a second: closes a connection that sent no HTTP within the handshake timeout, one whose
    /// request trickles in past the request timeout, one whose HTTP/2 response bodies are taken past the
    /// response-drain timeout, one whose peer has not taken a byte of output produced longer ago than that
    /// timeout (a byte-at-a-time reader), and one whose owed output made no progress for the write-stall timeout
    /// (HTTP/2: GOAWAY(ENHANCE_YOUR_CALM) first when the socket still takes bytes).
    func checkTimeouts(now: UInt64) {
        switch state {
        case .open, .closingWhenFlushed(cutOffAt: nil): break
        case .closingWhenFlushed(let cutOffAt?):
            if now >= cutOffAt { abort() }
            return
        case .lingering(let until):
            if now >= until { close() }
            return
        case .closed: return
        }
        // Most connections most of the time: HTTP/2 with no stream open and nothing owed, so nothing to check.
        // Thousands of idle connections must cost next to nothing here.
        if pendingOutputBytes == 0, outputAges.isEmpty, case .http2(let http2) = session, http2.hasNoStreams {
            stallMark = nil
            requestMark = nil
            if now &- lastActivity >= Self.quietNanoseconds, trimmedAt != lastActivity {
                trimmedAt = lastActivity
                trimIdleMemory(http2)
            }
            return
        }
        let configuration = context.configuration
        if case .detecting = session,
            now &- acceptedAt >= UInt64(configuration.handshakeTimeoutSeconds) &* 1_000_000_000 {
            logger.debug("closing a connection that sent no HTTP in time", [("peer", remoteAddress)])
            context.abuse.handshakeTimeouts.add(1, ordering: .relaxed)
            close()
            return
        }
        if checkRequestTimeout(now: now) || checkResponseDrain(now: now) || checkOutputDrain(now: now) { return }
        // Bytes the peer took count as progress even when the socket took none: with TCP_NOTSENT_LOWAT a slow
        // reader's socket is writable only now and then. A reader that is slow, not stopped, is the response-drain
        // check's (checkOutputDrain, just above, which also brought `taken` up to date).
        var progress = writeProgress &+ outputAges.taken
        var owesOutput = pendingOutputBytes > 0
        if case .http2(let http2) = session {
            progress &+= http2.dataFramesSent
            owesOutput = owesOutput || http2.isSendingResponses
        }
        guard owesOutput else {
            stallMark = nil
            return
        }
        guard let mark = stallMark, mark.progress == progress else {
            stallMark = (progress, now)
            return
        }
        guard now &- mark.since >= UInt64(configuration.writeStallTimeoutSeconds) &* 1_000_000_000 else { return }
        stallMark = nil
        logger.info("closing a connection whose peer stopped taking its responses", [("peer", remoteAddress)])
        context.abuse.stalledConnections.add(1, ordering: .relaxed)
        if pendingOutputBytes == 0, case .http2(let http2) = session, http2.goAwayBecauseStalled() {
            closeWhenFlushed()
            loop.markDirty(self)
        } else {
            close()
        }
    }

    /// Cuts off a connection on which a request has been arriving, with no request completing, for longer than
    /// the request timeout. Returns whether it did.
    private func checkRequestTimeout(now: UInt64) -> Bool {
        let midRequest: Bool
        let completed: UInt64
        switch session {
        case .detecting: return false
        case .http1(let http1): (midRequest, completed) = (http1.messageInProgress, http1.requestsCompleted)
        case .http2(let http2): (midRequest, completed) = (http2.hasIncompleteRequest, http2.requestsCompleted)
        }
        guard midRequest else {
            requestMark = nil
            return false
        }
        guard let mark = requestMark, mark.completed == completed else {
            requestMark = (completed, now)
            return false
        }
        let limit = UInt64(context.configuration.requestTimeoutSeconds) &* 1_000_000_000
        guard now &- mark.since >= limit else { return false }
        requestMark = nil
        logger.info("cutting off a connection whose request is arriving too slowly", [("peer", remoteAddress)])
        context.abuse.slowRequests.add(1, ordering: .relaxed)
        if pendingOutputBytes == 0, case .http2(let http2) = session, http2.goAwayBecauseRequestTooSlow() {
            closeWhenFlushed()
            loop.markDirty(self)
        } else {
            close()
        }
        return true
    }

    /// Cuts off an HTTP/2 connection that has held a response body back for longer than the response-drain
    /// timeout: a peer opening its window a byte at a time moves the write-stall check's progress measure, so only a
    /// deadline per response ends it. Returns whether it did.
    private func checkResponseDrain(now: UInt64) -> Bool {
        guard case .http2(let http2) = session, let since = http2.oldestResponseBodySince else { return false }
        let limit = UInt64(context.configuration.responseDrainTimeoutSeconds) &* 1_000_000_000
        guard now >= since &+ limit else { return false }
        logger.info(
            "cutting off a connection whose peer takes its responses too slowly",
            [("peer", remoteAddress), ("responseDrainTimeoutSeconds", String(context.configuration.responseDrainTimeoutSeconds))])
        context.abuse.stalledConnections.add(1, ordering: .relaxed)
        if pendingOutputBytes == 0, http2.goAwayBecauseResponsesCrawl() {
            closeWhenFlushed()
            loop.markDirty(self)
        } else {
            close()
        }
        return true
    }

    /// Cuts off a connection whose oldest output byte not yet taken by the peer (in our buffer, or in the kernel's
    /// send buffer unacknowledged) has waited longer than the response-drain timeout: a peer that reads a byte at a
    /// time through a tiny receive window makes progress on every write, so the write-stall check never fires, and
    /// its flow-control window is fine, so the response-drain check does not see it either. HTTP/2 drops the
    /// frames our buffer has not begun to write and queues GOAWAY(ENHANCE_YOUR_CALM) in their place, then resets
    /// the connection if that is not taken within the linger time (a peer reading this slowly will not take it);
    /// HTTP/1.1 (nothing to say mid-response) is reset at once. Returns whether it did.
    ///
    /// The rule is the age of a byte, not how long output has been owed, so an honest client on a slow link is
    /// cut only if more than (its reading rate x the timeout) is queued ahead of some byte. Ahead of any byte are
    /// at most our buffer (``HTTPServerConfiguration/maxBufferedOutputBytes``, 1 MiB; HTTP/1.1 pipelining stops at
    /// 64 KiB) and the kernel's send queue (at most 128 KiB not yet sent, `EventLoop.unsentLowWaterBytes`, plus
    /// what is in flight, about a round trip's worth): a client taking 40 KB/s or more never lets a byte wait 30 s,
    /// however long it keeps the server busy, and our answers are a few KiB.
    private func checkOutputDrain(now: UInt64) -> Bool {
        guard !outputAges.isEmpty, let since = outputAges.oldestUntaken(unacknowledged: unacknowledgedBytes)
        else { return false }
        let timeout = context.configuration.responseDrainTimeoutSeconds
        guard now >= since &+ UInt64(timeout) &* 1_000_000_000 else { return false }
        context.abuse.stalledConnections.add(1, ordering: .relaxed)
        let unsent = pendingOutputBytes
        var dropped = 0
        // nghttp2 serializes the GOAWAY at the next flush, so it follows whatever dropUnsentFrames keeps.
        if case .http2(let http2) = session, http2.goAwayBecauseReadTooSlowly() {
            dropped = dropUnsentFrames()
            closeWhenFlushed(cutOffAt: now &+ Self.lingerNanoseconds)
            loop.markDirty(self)
        } else {
            abort()
        }
        logger.info(
            "cutting off a connection whose peer reads its responses too slowly",
            [("peer", remoteAddress), ("unsentBytes", String(unsent)), ("droppedBytes", String(dropped)),
             ("responseDrainTimeoutSeconds", String(timeout))])
        return true
    }

    /// Bytes written to the socket that the peer's TCP has not acknowledged yet (0 without a socket).
    private var unacknowledgedBytes: Int {
        guard memoryOutput == nil else { return 0 }
        var count: Int32 = 0
        // TIOCOUTQ is SIOCOUTQ (linux/sockios.h, which Swift does not import): for TCP, the send queue's bytes
        // not yet acknowledged.
        guard ioctl(fd, UInt(TIOCOUTQ), &count) == 0 else { return 0 }
        return Int(count)
    }

    /// Closes with a reset (SO_LINGER 0): what the kernel still holds for a peer that is not reading is dropped
    /// at once, instead of being kept and retransmitted to it after the close.
    private func abort() {
        if memoryOutput == nil {
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        }
        close()
    }

    /// Everything owed has been written: shut the write side and linger (see `State.lingering`), or close at once
    /// when there is no socket or the server is shutting down.
    private func closeGracefully() {
        guard memoryOutput == nil, !context.isShuttingDown.load(ordering: .relaxed) else {
            close()
            return
        }
        tls?.shutdown()
        guard Glibc.shutdown(fd, Int32(SHUT_WR)) == 0 else {
            close()
            return
        }
        state = .lingering(until: MonotonicClock.nanoseconds() &+ Self.lingerNanoseconds)
        if registeredEvents != cshims_EPOLLIN {
            registeredEvents = cshims_EPOLLIN
            loop.setInterest(self, events: cshims_EPOLLIN)
        }
        discardInput()
    }

    /// Reads and drops what a lingering connection's peer still sends; closes at its end of file.
    private func discardInput() {
        for _ in 0..<16 {
            switch Posix.read(fd, into: loop.readBuffer) {
            case .bytes: continue
            case .wouldBlock: return
            case .endOfFile, .failed: close(); return
            }
        }
    }

    /// Closes the socket now; in-flight responses for it are dropped.
    func close() {
        let wasLingering: Bool
        switch state {
        case .open, .closingWhenFlushed: wasLingering = false
        case .lingering: wasLingering = true
        case .closed: return
        }
        state = .closed
        switch session {
        case .detecting: break
        case .http1(let http1): http1.connectionClosed()
        case .http2(let http2): http2.connectionClosed()
        }
        session = .detecting([])
        // A lingering connection sent its close_notify when it shut its write side.
        if pendingOutputBytes == 0 && !wasLingering { tls?.shutdown() }
        loop.remove(self)
        if memoryOutput == nil { Posix.close(fd) }
        context.openConnections.subtract(1, ordering: .relaxed)
        if let countedHost { context.releaseConnection(from: countedHost) }
    }
}

/// The output of a connection that has no socket: what the server wrote, for an in-memory peer to read.
final class MemoryOutput {
    var bytes: [UInt8] = []

    /// Returns and clears what was written.
    func take() -> [UInt8] {
        defer { bytes = [] }
        return bytes
    }
}
