import Basics
import CShimsLinux
import Glibc
import HTTP

/// One load thread: its own epoll instance and connections, many streams each, driven by one workload.
final class LoadWorker {
    private let endpoint: Endpoint
    private let host: String
    private let port: Int
    private let streamsPerConnection: Int
    private let tls: ClientTLS?
    private var connections: [H2ClientConnection] = []
    private let headers: [HTTP2RequestHeaders]
    private let epoll: Int32
    private let timer: Int32
    private let events: UnsafeMutablePointer<epoll_event>
    private let eventCapacity: Int32 = 256
    private let readBuffer: UnsafeMutableRawBufferPointer
    private var nextConnection = 0
    private var inFlight = 0
    /// The deadline the timer is armed for (0: none yet): re-arming it for the same one is a system call for nothing,
    /// and open loop would pay it on every answer.
    private var armedDeadline: UInt64 = 0

    private static let timerToken = UInt64.max

    init(endpoint: Endpoint, host: String, port: Int, tls: ClientTLS?, connections count: Int, streamsPerConnection: Int)
        throws(BenchError) {
        self.endpoint = endpoint
        self.tls = tls
        self.host = host
        self.port = port
        self.streamsPerConnection = streamsPerConnection
        headers = RequestKind.allCases.map { endpoint.headers($0) }
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        timer = timerfd_create(CLOCK_MONOTONIC, cshims_TFD_NONBLOCK | cshims_TFD_CLOEXEC)
        events = cshims_epoll_events_alloc(eventCapacity)
        readBuffer = .allocate(byteCount: 256 * 1024, alignment: 16)
        // Edge-triggered: an expiry wakes the loop once, and arming the timer again clears its count, so the loop
        // never reads the timerfd (a system call per open-loop arrival saved).
        _ = cshims_epoll_ctl(epoll, EPOLL_CTL_ADD, timer, cshims_EPOLLIN | cshims_EPOLLET, Self.timerToken)
        for _ in 0..<count { try addConnection() }
    }

    deinit {
        connections.removeAll()
        free(events)
        readBuffer.deallocate()
        close(timer)
        close(epoll)
    }

    private func addConnection() throws(BenchError) {
        let connection = try H2ClientConnection(host: host, port: port, tls: tls)
        _ = cshims_epoll_ctl(epoll, EPOLL_CTL_ADD, connection.fd, cshims_EPOLLIN, UInt64(connections.count))
        connections.append(connection)
        connection.flush()
    }

    /// Replaces a connection the server closed, so a phase goes on at the same concurrency.
    private func reconnect(_ index: Int) {
        _ = cshims_epoll_ctl(epoll, EPOLL_CTL_DEL, connections[index].fd, 0, 0)
        guard let connection = try? H2ClientConnection(host: host, port: port, tls: tls) else { return }
        _ = cshims_epoll_ctl(epoll, EPOLL_CTL_ADD, connection.fd, cshims_EPOLLIN, UInt64(index))
        connections[index] = connection
        connection.flush()
    }

    /// Runs setup requests to completion (no timing), as many at once as the stream slots allow.
    func runBatch(_ workload: BatchWorkload) {
        var ignored = PhaseResult()
        let far = MonotonicClock.nanoseconds() + 3_600_000_000_000
        run(workload, pacing: .closed, clock: PhaseClock(start: 0, warmupEnd: far, end: far, drain: 0), result: &ignored)
    }

    /// Runs one timed phase; returns what this worker measured.
    func runPhase(_ workload: any Workload, pacing: Pacing, clock: PhaseClock) -> PhaseResult {
        var result = PhaseResult()
        let bins = max(1, Int((MonotonicTime.seconds(clock.end - clock.start) / PhaseResult.binSeconds).rounded()))
        result.timeline = Array(repeating: 0, count: bins)
        result.timelineSlowest = Array(repeating: 0, count: bins)
        result.firstMeasuredBin = Int((MonotonicTime.seconds(clock.warmupEnd - clock.start) / PhaseResult.binSeconds).rounded())
        run(workload, pacing: pacing, clock: clock, result: &result)
        return result
    }

    private func run(_ workload: any Workload, pacing: Pacing, clock: PhaseClock, result: inout PhaseResult) {
        let capacity = connections.count * streamsPerConnection
        var scheduledQueue: [UInt64] = []
        var queueHead = 0
        var arrivals: UInt64 = 0
        /// A job no connection could take this turn (each at the server's stream limit): sent first next turn.
        var held: Job?
        var lastCompletion = clock.warmupEnd
        let interval: Double
        if case .open(let rate) = pacing { interval = 1e9 / rate } else { interval = 0 }

        while true {
            let now = MonotonicClock.nanoseconds()
            let sending = now < clock.end && !(workload.isExhausted && held == nil && queueHead == scheduledQueue.count)
            if !sending {
                if inFlight == 0 { break }
                if now > clock.end + clock.drain {
                    result.timedOut += inFlight
                    break
                }
            }
            if sending {
                switch pacing {
                case .closed:
                    while inFlight < capacity, let job = held ?? workload.next() {
                        held = nil
                        if !send(job, scheduled: MonotonicClock.nanoseconds()) {
                            hold(job, &held, workload: workload, result: &result)
                            break
                        }
                    }
                case .open:
                    while true {
                        let due = clock.start + UInt64(Double(arrivals) * interval)
                        guard due <= now, due < clock.end else { break }
                        scheduledQueue.append(due)
                        arrivals += 1
                    }
                    while queueHead < scheduledQueue.count && inFlight < capacity, let job = held ?? workload.next() {
                        held = nil
                        if !send(job, scheduled: scheduledQueue[queueHead]) {
                            hold(job, &held, workload: workload, result: &result)
                            break
                        }
                        queueHead += 1
                    }
                    if queueHead > 65_536 {
                        scheduledQueue.removeFirst(queueHead)
                        queueHead = 0
                    }
                    let nextDue = clock.start + UInt64(Double(arrivals) * interval)
                    armTimer(at: min(nextDue, clock.end))
                }
            }
            for (index, connection) in connections.enumerated() {
                let wanted = connection.wantsWritable
                connection.flush()
                if connection.wantsWritable != wanted {
                    let mask = cshims_EPOLLIN | (connection.wantsWritable ? cshims_EPOLLOUT : 0)
                    _ = cshims_epoll_ctl(epoll, EPOLL_CTL_MOD, connection.fd, mask, UInt64(index))
                }
            }
            let timeout: Int32
            switch pacing {
            case .closed: timeout = 5
            case .open: timeout = sending ? -1 : 5
            }
            let ready = epoll_wait(epoll, events, eventCapacity, timeout)
            if ready > 0 {
                for slot in 0..<Int(ready) {
                    let token = cshims_epoll_event_data(events, Int32(slot))
                    if token == Self.timerToken { continue }
                    let mask = cshims_epoll_event_events(events, Int32(slot))
                    let connection = connections[Int(token)]
                    if mask & (cshims_EPOLLIN | cshims_EPOLLHUP | cshims_EPOLLERR) != 0 {
                        connection.readAvailable(buffer: readBuffer)
                    }
                    if mask & cshims_EPOLLOUT != 0 { connection.flush() }
                }
            }
            collect(workload, openLoop: interval > 0, clock: clock, result: &result, lastCompletion: &lastCompletion)
            for index in connections.indices where connections[index].isClosed && MonotonicClock.nanoseconds() < clock.end {
                reconnect(index)
            }
            // The server is gone (every connection closed, none could be made again): nothing more can be measured.
            if inFlight == 0 && connections.allSatisfy(\.isClosed) {
                result.serverLost = true
                break
            }
        }
        if case .open = pacing {
            let unsent = scheduledQueue.count - queueHead
            result.notSent += unsent
        }
        result.exhausted = workload.isExhausted
        let endedEarly: Bool
        if case .closed = pacing { endedEarly = result.exhausted } else { endedEarly = false }
        if (endedEarly || result.serverLost) && lastCompletion < clock.end {
            result.measuredSeconds = MonotonicTime.seconds(lastCompletion - min(lastCompletion, clock.warmupEnd))
        } else {
            result.measuredSeconds = MonotonicTime.seconds(clock.end - clock.warmupEnd)
        }
    }

    /// A job no connection would take: held for the next turn while a connection is open (they are all at the
    /// server's stream limit); otherwise counted as an error and handed back as failed, so that its key lane is free
    /// again (and a batch sees it unanswered).
    private func hold(_ job: Job, _ held: inout Job?, workload: any Workload, result: inout PhaseResult) {
        if connections.contains(where: { !$0.isClosed }) {
            held = job
            return
        }
        workload.completed(job, ok: false, outcome: Outcome(resetCode: Outcome.connectionLost))
        if !job.isReplay { result.kinds[job.kind.rawValue].errors["not sent (no open connection)", default: 0] += 1 }
    }

    private func send(_ job: Job, scheduled: UInt64) -> Bool {
        for _ in 0..<connections.count {
            let connection = connections[nextConnection]
            nextConnection = (nextConnection + 1) % connections.count
            if !connection.isClosed && connection.inFlight < min(streamsPerConnection, connection.remoteMaxStreams) {
                if connection.submit(job, scheduled: scheduled, headers: headers[job.kind.rawValue]) {
                    inFlight += 1
                    return true
                }
            }
        }
        return false
    }

    private func collect(
        _ workload: any Workload, openLoop: Bool, clock: PhaseClock, result: inout PhaseResult, lastCompletion: inout UInt64
    ) {
        let framing = endpoint.framing
        for connection in connections {
            for (job, scheduled, outcome) in connection.takeFinished() {
                inFlight -= 1
                let now = MonotonicClock.nanoseconds()
                let ok = outcome.isOK(framing: framing)
                workload.completed(job, ok: ok, outcome: outcome)
                let kind = job.kind.rawValue
                if job.isReplay {
                    result.kinds[kind].replaysSent += 1
                    if outcome.isRefused(framing: framing) {
                        result.kinds[kind].replaysRefused += 1
                    } else {
                        result.kinds[kind].replayOther[outcome.statusKey(framing: framing), default: 0] += 1
                    }
                    continue
                }
                if ok && now >= clock.start && now < clock.end && !result.timeline.isEmpty {
                    let bin = min(result.timeline.count - 1, Int(MonotonicTime.seconds(now - clock.start) / PhaseResult.binSeconds))
                    result.timeline[bin] += 1
                    let latency = now - min(now, scheduled)
                    result.timelineSlowest[bin] = max(result.timelineSlowest[bin], latency)
                }
                // Closed loop: what completed inside the window. Open loop: what was scheduled inside it.
                let reference = openLoop ? scheduled : now
                guard reference >= clock.warmupEnd && reference < clock.end else { continue }
                if ok {
                    result.kinds[kind].ok += 1
                    let latency = now > scheduled ? now - scheduled : 0
                    result.kinds[kind].latency.record(latency)
                    result.latency.record(latency)
                    lastCompletion = max(lastCompletion, now)
                } else {
                    let key = outcome.statusKey(framing: framing)
                    result.kinds[kind].errors[key, default: 0] += 1
                    if result.kinds[kind].errorSamples[key] == nil {
                        result.kinds[kind].errorSamples[key] = outcome.message.isEmpty
                            ? String(decoding: outcome.body.prefix(200), as: UTF8.self) : outcome.message
                    }
                }
            }
        }
    }

    private func armTimer(at deadline: UInt64) {
        guard deadline != armedDeadline else { return }
        armedDeadline = deadline
        MonotonicTime.arm(timer: timer, at: deadline)
    }
}
