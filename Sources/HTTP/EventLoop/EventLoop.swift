import Basics
import Batching
import CShimsLinux
import Crypto
import TLS
import Glibc
import Observability
import Synchronization

/// One thread with its own epoll instance, its own SO_REUSEPORT listening sockets, an eventfd through which other
/// threads post work, and a timerfd for idle timeouts and the shutdown deadline.
///
/// `@unchecked Sendable`: only `execute(joining:_:)`, `wake()` (a batch's flush), `isInLoopThread` and `init` may be
/// used from other threads (they go through `inbox`, an atomic and immutable file descriptors); everything else runs
/// on the loop thread alone.
final class EventLoop: @unchecked Sendable, WakeTarget {
    let context: ServerContext
    /// Which of the server's loops this is: in its logs' `loop` field and its thread's name.
    let index: Int
    let logger: Logger
    /// A scratch buffer for socket reads, shared by every connection of this loop (one read at a time).
    let readBuffer: UnsafeMutableRawBufferPointer

    private let epollFD: Int32
    private let wakeFD: Int32
    private let timerFD: Int32
    private let events: UnsafeMutablePointer<epoll_event>
    private static let maxEvents: Int32 = 256
    private let inbox = Mutex(Inbox())
    private let threadID = Atomic<UInt>(0)

    // Loop-thread state.
    private var listeners: [LoopListener] = []
    private var connections: [UInt64: Connection] = [:]
    private var dirty: [Connection] = []
    private var flushing: [Connection] = []
    private var postedTasks: [@Sendable () -> Void] = []
    /// Loop turns so far, and the turn in which a handler last ran work inline (`LoopTurn.claimInlineSlot`).
    private var turn: UInt64 = 1
    private var inlineTurn: UInt64 = 0
    /// The loop runs on its own thread (`run()`), not driven by a test: only then are inline slots given.
    private var runsOwnThread = false
    private var nextConnectionID: UInt64 = EventLoop.firstConnectionToken
    private var state = State.running
    /// The open connections, each knowing its index, for the timeout scan: every tick looks at the next tenth of
    /// them, so no tick visits them all. `scanOrder[..<scanCursor]` have been looked at in this pass; see `tick()`.
    private var scanOrder: [Connection] = []
    private var scanCursor = 0
    /// Connections looked at per tick in the current pass.
    private var scanStep = 0
    private var scanBatch: [Connection] = []

    private enum State {
        case running
        /// Graceful shutdown: listeners are closed; connections drain until `deadline`.
        case draining(deadline: UInt64)
        case stopped
    }

    private static let wakeToken: UInt64 = 0
    private static let timerToken: UInt64 = 1
    private static let firstListenerToken: UInt64 = 16
    private static let firstConnectionToken: UInt64 = 1 << 32
    private static let tickNanos: Int = 100_000_000
    /// Ticks per pass over all connections' timeouts: 10 ticks of 100 ms, once a second.
    private static let scanSlices = 10
    /// TCP_NOTSENT_LOWAT for accepted sockets: the kernel takes no more than this beyond what is in flight. Without
    /// it Linux grows a socket's send buffer to `tcp_wmem`'s maximum (4 MiB): a peer reading through a tiny window
    /// then parks megabytes of kernel memory per connection, and even a client reading steadily at 800 KB/s had
    /// 4 MB (5 s) queued ahead of its next byte. With it, output waits in the connection's own buffer, which
    /// back-pressure caps and the slow-reader check can see and drop (see `Connection.checkOutputDrain`).
    static let unsentLowWaterBytes: Int32 = 128 * 1024

    init(context: ServerContext, index: Int) throws(HTTPServerError) {
        self.context = context
        self.index = index
        self.logger = context.logger.with("loop", String(index))
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        wakeFD = eventfd(0, cshims_EFD_NONBLOCK | cshims_EFD_CLOEXEC)
        timerFD = timerfd_create(CLOCK_MONOTONIC, cshims_TFD_NONBLOCK | cshims_TFD_CLOEXEC)
        events = cshims_epoll_events_alloc(EventLoop.maxEvents)
        readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        guard epollFD >= 0, wakeFD >= 0, timerFD >= 0,
            cshims_epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, cshims_EPOLLIN, EventLoop.wakeToken) == 0,
            cshims_epoll_ctl(epollFD, EPOLL_CTL_ADD, timerFD, cshims_EPOLLIN, EventLoop.timerToken) == 0
        else {
            throw HTTPServerError(.systemResourceFailed, "event loop \(index): \(Posix.describe(errno))")
        }
        var interval = itimerspec()
        interval.it_interval.tv_nsec = EventLoop.tickNanos
        interval.it_value.tv_nsec = EventLoop.tickNanos
        timerfd_settime(timerFD, 0, &interval, nil)
    }

    deinit {
        for listener in listeners { Posix.close(listener.fd) }
        Posix.close(epollFD)
        Posix.close(wakeFD)
        Posix.close(timerFD)
        free(events)
        readBuffer.deallocate()
    }

    // MARK: Any thread

    /// Whether the caller runs on this loop's thread.
    var isInLoopThread: Bool { threadID.load(ordering: .relaxed) == UInt(pthread_self()) }

    /// Runs `task` on the loop thread at its next turn. Tasks posted after the loop has stopped are dropped. When
    /// the loop must be woken for it, a poster with a `batch` holds the wake-up back in it until the batch flushes.
    func execute(joining batch: Batch? = nil, _ task: @escaping @Sendable () -> Void) {
        let mustWake = inbox.withLock { inbox in
            guard inbox.isOpen else { return false }
            inbox.tasks.append(task)
            // A loop that is awake takes its tasks before it sleeps again, and one wake-up already on its way serves
            // every task posted before the loop reads it: the eventfd is written only to wake a sleeping loop, once.
            guard inbox.sleeping, !inbox.wakePending else { return false }
            inbox.wakePending = true
            return true
        }
        guard mustWake else { return }
        // A pool thread with more work queued wakes the loop after a few answers rather than after each.
        if let batch {
            batch.holdWake(of: self)
        } else {
            wake()
        }
    }

    /// Writes the eventfd, for a wake-up that `execute` decided (and marked pending) or that a batch deferred.
    func wake() {
        var one: UInt64 = 1
        _ = Glibc.write(wakeFD, &one, 8)
    }

    // MARK: Setup (before the thread starts)

    /// Adopts a bound, listening socket. Called before `run()`, on the thread that starts the server.
    func addListener(fd: Int32, index: Int, tls: TLSServerContext?) throws(HTTPServerError) {
        let token = EventLoop.firstListenerToken + UInt64(listeners.count)
        guard cshims_epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, cshims_EPOLLIN, token) == 0 else {
            throw HTTPServerError(.systemResourceFailed, "epoll_ctl on a listener: \(Posix.describe(errno))")
        }
        listeners.append(LoopListener(fd: fd, index: index, tls: tls))
    }

    // MARK: Loop thread

    /// The thread body: waits for events until graceful shutdown has drained every connection.
    func run() {
        ThreadName.setCurrent("event-loop-\(index)")
        threadID.store(UInt(pthread_self()), ordering: .relaxed)
        runsOwnThread = true
        while true {
            turn &+= 1
            // Tasks posted during the last turn run in this one, after a look at the sockets that does not sleep;
            // only with none waiting does the loop sleep, and posters then wake it through the eventfd.
            let tasksWaiting = inbox.withLock { inbox in
                if inbox.tasks.isEmpty { inbox.sleeping = true }
                return !inbox.tasks.isEmpty
            }
            let count = epoll_wait(epollFD, events, EventLoop.maxEvents, tasksWaiting ? 0 : -1)
            if !tasksWaiting { inbox.withLock { $0.sleeping = false } }
            if count < 0 {
                if errno == EINTR { continue }
                logger.error("epoll_wait failed", [("error", Posix.describe(errno))])
                break
            }
            for index in 0..<count {
                let token = cshims_epoll_event_data(events, index)
                let bits = cshims_epoll_event_events(events, index)
                switch token {
                case EventLoop.wakeToken: drainInbox()
                case EventLoop.timerToken: tick()
                case EventLoop.firstConnectionToken...: connections[token]?.handle(events: bits)
                default: accept(from: Int(token - EventLoop.firstListenerToken))
                }
            }
            if tasksWaiting { runTasks() }
            flushDirty()
            if case .draining = state, connections.isEmpty { state = .stopped }
            if case .stopped = state { break }
        }
        for connection in Array(connections.values) { connection.close() }
        // A task captures the loop (a responder's delivery does): kept in a stopped loop's inbox, it would keep
        // the loop alive forever. Released outside the lock, since releasing may run arbitrary deinits.
        let dropped = inbox.withLock { inbox in
            inbox.isOpen = false
            defer { inbox.tasks = [] }
            return inbox.tasks
        }
        _ = consume dropped
        threadID.store(0, ordering: .relaxed)
    }

    /// Marks `connection` for a flush at the end of this loop turn, so that all output of a turn goes out in one
    /// write per connection.
    func markDirty(_ connection: Connection) {
        guard !connection.isDirty else { return }
        connection.isDirty = true
        dirty.append(connection)
    }

    /// The live connection with this id, if it is still open.
    func connection(_ id: UInt64) -> Connection? { connections[id] }

    /// Forgets a closed connection.
    func remove(_ connection: Connection) {
        if connection.memoryOutput == nil, cshims_epoll_ctl(epollFD, EPOLL_CTL_DEL, connection.fd, 0, 0) != 0 {
            logger.debug("epoll_ctl DEL failed", [("error", Posix.describe(errno))])
        }
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        // Removed from the scan order in O(1), keeping the connections already looked at in this pass before
        // `scanCursor` and the rest after it: a hole among the first is filled by the last of them, and the hole
        // that leaves (or one among the rest) by the last connection of all.
        var hole = connection.scanIndex
        if hole < scanCursor {
            scanCursor -= 1
            scanOrder[hole] = scanOrder[scanCursor]
            scanOrder[hole].scanIndex = hole
            hole = scanCursor
        }
        let last = scanOrder.removeLast()
        if hole < scanOrder.count {
            scanOrder[hole] = last
            last.scanIndex = hole
        }
        connection.scanIndex = -1
    }

    /// Changes the readiness bits a connection waits for.
    func setInterest(_ connection: Connection, events: UInt32) {
        guard connection.memoryOutput == nil else { return }
        _ = cshims_epoll_ctl(epollFD, EPOLL_CTL_MOD, connection.fd, events, connection.id)
    }

    /// Starts draining: closes listeners so new connections are refused, tells every connection to wind down.
    func beginShutdown(deadline: UInt64) {
        guard case .running = state else { return }
        state = .draining(deadline: deadline)
        for listener in listeners {
            _ = cshims_epoll_ctl(epollFD, EPOLL_CTL_DEL, listener.fd, 0, 0)
            Posix.close(listener.fd)
        }
        listeners.removeAll()
        for connection in connections.values {
            connection.beginGracefulShutdown()
            markDirty(connection)
        }
    }

    // MARK: Driving a loop without its thread (in-memory tests)

    /// Makes the calling thread this loop's thread, for a loop whose `run()` is never started.
    func adoptCallingThread() {
        threadID.store(UInt(pthread_self()), ordering: .relaxed)
    }

    /// The turn running now, as handlers are told it.
    var currentTurn: LoopTurn { LoopTurn(loop: self, number: runsOwnThread ? turn : 0) }

    /// True once per loop turn, while turn `number` runs: the caller may run one piece of work inline in this turn
    /// (see `LoopTurn`).
    func claimInlineSlot(inTurn number: UInt64) -> Bool {
        guard number == turn, inlineTurn != turn else { return false }
        inlineTurn = turn
        return true
    }

    /// Opens a connection with no socket: bytes go in through `Connection.receive(memory:)` and come out in
    /// `output` after `runPendingWork()`.
    func openMemoryConnection(output: MemoryOutput) -> Connection {
        let id = nextConnectionID
        nextConnectionID += 1
        let connection = Connection(id: id, fd: -1, loop: self, tls: nil, remoteAddress: "memory", memoryOutput: output)
        track(connection)
        return connection
    }

    /// One loop turn without epoll: runs posted tasks, then flushes every dirty connection.
    func runPendingWork() {
        turn &+= 1
        drainInbox()
        flushDirty()
    }

    /// Reads the wake-up, then runs every posted task.
    private func drainInbox() {
        var counter: UInt64 = 0
        _ = Glibc.read(wakeFD, &counter, 8)
        runTasks(wakeRead: true)
    }

    /// Runs every task posted so far. `wakeRead`: the eventfd was just read, so a poster must write it again.
    private func runTasks(wakeRead: Bool = false) {
        // Swapped with a spare array, so that neither allocates on a steady-state turn.
        inbox.withLock { inbox in
            if wakeRead { inbox.wakePending = false }
            swap(&inbox.tasks, &postedTasks)
        }
        for task in postedTasks { task() }
        postedTasks.removeAll(keepingCapacity: true)
    }

    private func tick() {
        var expirations: UInt64 = 0
        _ = Glibc.read(timerFD, &expirations, 8)
        let now = MonotonicClock.nanoseconds()
        switch state {
        case .running, .stopped:
            break
        case .draining(let deadline):
            if now >= deadline {
                if !connections.isEmpty {
                    logger.info("shutdown deadline reached; closing connections", [("count", String(connections.count))])
                }
                for connection in Array(connections.values) { connection.close() }
                return
            }
            for connection in connections.values { connection.shutdownTick() }
        }
        // Each connection's timeouts are looked at about once a second (they are whole seconds anyway), a tenth of
        // the connections on each tick: checking thousands in one turn would hold up every request that arrives
        // meanwhile by milliseconds, once a second. A tenth of the most open at any tick of this pass, so that
        // connections closed along the way do not slow a pass down, nor ones opened during it make it longer.
        let tenth = (scanOrder.count + EventLoop.scanSlices - 1) / EventLoop.scanSlices
        if scanCursor >= scanOrder.count {
            scanCursor = 0
            scanStep = tenth
        }
        scanStep = max(scanStep, tenth)
        let end = min(scanOrder.count, scanCursor + scanStep)
        guard scanCursor < end else { return }
        // Copied out first, and counted as looked at before any is: closing one rearranges `scanOrder`.
        scanBatch.append(contentsOf: scanOrder[scanCursor..<end])
        scanCursor = end
        defer { scanBatch.removeAll(keepingCapacity: true) }
        let limit = UInt64(max(1, context.configuration.idleTimeoutSeconds)) * 1_000_000_000
        for connection in scanBatch {
            if now &- connection.lastActivity >= limit {
                connection.closeBecauseIdle()
            } else {
                connection.checkTimeouts(now: now)
            }
        }
    }

    /// Adds an open connection to the loop's table and to the timeout scan.
    private func track(_ connection: Connection) {
        connections[connection.id] = connection
        connection.scanIndex = scanOrder.count
        scanOrder.append(connection)
    }

    private func accept(from index: Int) {
        guard index < listeners.count else { return }
        let listener = listeners[index]
        // Bounded so one busy listener cannot starve the connections already open: a few per turn, then the loop
        // serves what else is ready before it takes more. With 64 per turn, 2000 connections opened within a second
        // held up a well-behaved client's requests by several milliseconds (the e2e abuse test's probe: p99 2.6
        // times its baseline in 2 of 4 runs, against 2 of 8 runs with 8 per turn).
        for _ in 0..<8 {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    cshims_accept4(listener.fd, $0, &length, cshims_SOCK_NONBLOCK | cshims_SOCK_CLOEXEC)
                }
            }
            if fd < 0 {
                switch errno {
                case EINTR, ECONNABORTED: continue
                case EAGAIN, EWOULDBLOCK: return
                default:
                    // EMFILE and friends: log and let the next readiness event retry.
                    logger.warning("accept failed", [("error", Posix.describe(errno))])
                    return
                }
            }
            var one: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            var lowWater = EventLoop.unsentLowWaterBytes
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NOTSENT_LOWAT, &lowWater, socklen_t(MemoryLayout<Int32>.size))
            let peer = SocketAddress.describe(address)
            let limitsAddresses = context.configuration.maxConnectionsPerAddress > 0
            if limitsAddresses, !context.admitConnection(from: peer.host) {
                // Closed before any byte is read: a peer over its share costs one accept and one close.
                logger.debug("refusing a connection over the per-address limit", [("peer", peer.host)])
                Posix.close(fd)
                continue
            }
            let id = nextConnectionID
            nextConnectionID += 1
            var tls: TLSStream?
            if let tlsContext = listener.tls {
                guard let stream = TLSStream(context: tlsContext, fd: fd) else {
                    logger.warning("SSL_new failed", [("error", OpenSSLErrorQueue.drain())])
                    if limitsAddresses { context.releaseConnection(from: peer.host) }
                    Posix.close(fd)
                    continue
                }
                tls = stream
            }
            let connection = Connection(
                id: id, fd: fd, loop: self, tls: tls, remoteAddress: "\(peer.host):\(peer.port)",
                listenerIndex: listener.index, countedHost: limitsAddresses ? peer.host : nil)
            guard cshims_epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, cshims_EPOLLIN, id) == 0 else {
                logger.warning("epoll_ctl ADD failed", [("error", Posix.describe(errno))])
                connection.close()
                continue
            }
            track(connection)
            if case .draining = state { connection.beginGracefulShutdown() }
        }
    }

    private func flushDirty() {
        // Flushing may dirty other connections (never in practice, but a responder may run inline), so loop.
        while !dirty.isEmpty {
            // Swap with a spare array so that neither allocates on a steady-state turn.
            swap(&dirty, &flushing)
            for connection in flushing {
                connection.isDirty = false
                connection.flush()
            }
            flushing.removeAll(keepingCapacity: true)
        }
    }
}

/// Tasks posted to a loop by other threads, and what a poster needs to know to wake it.
private struct Inbox {
    var tasks: [@Sendable () -> Void] = []
    /// The loop thread is in epoll_wait, or on its way there with no task left: a poster must wake it.
    var sleeping = false
    /// An eventfd write that the loop has not read yet was made, or is about to be.
    var wakePending = false
    /// False once the loop has stopped: a task posted later is dropped, not kept.
    var isOpen = true
}

/// A listening socket owned by one loop.
struct LoopListener {
    let fd: Int32
    /// The listener's position in the server configuration, which every request from it carries.
    let index: Int
    let tls: TLSServerContext?
}
