import Basics
import CShimsLinux
import Glibc

/// The open-loop target as this machine allows it, measured in the same run as attestd's sweep: the latency of a
/// server that does nothing but the exchange's crypto, at the same arrival rates.
///
/// The crypto bound says what the cores can do; the floor says what tail the machine itself (its scheduler, its
/// loopback, its wake-ups, two cores shared with a load generator) leaves a server at a given load. Each loopback TCP
/// connection has a server thread of its own that reads a 64-byte request with a blocking call, runs the exchange's
/// operations (the exchange's signature verification and the token signature: what the crypto bound counts), and
/// writes 64 bytes back: one wake-up per request, no framing, no hand-off between threads, no state store. One
/// client thread sends at the open loop's uniform arrival times, round robin over the connections, and counts
/// latency from each request's scheduled time, as the open-loop phases do. Where the floor misses the target, the
/// machine bounds it at that load.
///
/// Where the floor holds p99 within 3 × its own service time and attestd does not, the floor still had it easier: at
/// the same arrival rate it keeps the cores less busy than attestd does (it has no framing, no state and no hand-offs),
/// and on a machine this small the tail follows how busy the cores are. So the floor is
/// measured once more at the rate that keeps the cores as busy as attestd kept them at its highest load: that point
/// says what this machine allows any server at attestd's busyness.
struct LatencyFloor: Sendable {
    static let messageBytes = 64
    /// What the server thread runs for each request.
    let operations: [CryptoBound.Operation]
    let connections: Int
    /// Each measurement's untimed start, then its measured window.
    let warmupSeconds: Double
    let seconds: Double
    /// An open-loop measurement lasts long enough to measure at least this many requests, so that its p99 stands
    /// on a few dozen of them at a low rate.
    var minimumMeasured = 3_000

    /// Whether a floor measured here says anything about a server at `host`: only when that server shares this
    /// machine, which is what its loopback address says (the floor measures the machine the bench runs on).
    static func applies(toHost host: String) -> Bool {
        host.split(separator: ".").first == "127"
    }

    /// The floor at the rate that kept the cores as busy as the server under test kept them.
    struct BusyMatch: Sendable, Equatable {
        /// Cores the machine kept busy while the server under test ran at its highest load.
        var serverCoresBusy: Double
        /// The floor's point at the matching rate; its `fraction` is that rate over the server's saturating rate.
        var point: LatencyUnderLoad.Point
    }

    struct Measurement: Sendable {
        var sweep: LatencyUnderLoad
        var atServerBusy: BusyMatch?
    }

    /// The arrival rate at which the floor keeps `cores` busy: its busiest measured point's rate, scaled by how much
    /// busier the cores are to be, and at most `ceiling`. The floor's busy cores grow about in proportion to its rate;
    /// the part that does not (the machine's own background) makes a rate scaled up keep the cores a little less busy
    /// than asked (1.65 for 1.80 in one run), which only flatters the floor. Nil when no point measured enough busy
    /// time to scale from.
    static func rate(matching cores: Double, from points: [LatencyUnderLoad.Point], ceiling: Double) -> Double? {
        let measured = points.compactMap { point in point.coresBusy.map { (rate: point.arrivalsPerSecond, busy: $0) } }
        guard cores > 0, let busiest = measured.filter({ $0.busy >= 0.05 }).max(by: { $0.busy < $1.busy }) else {
            return nil
        }
        return min(ceiling, busiest.rate * cores / busiest.busy)
    }

    /// The one-at-a-time service time (its p50), then a point at each load; and with `busyToMatch`, a point at the
    /// rate (at most `ceiling` a second) that keeps the cores as busy as the server under test kept them.
    func measure(
        _ loads: [(fraction: Double, arrivalsPerSecond: Double)],
        busyToMatch: (cores: Double, ceiling: Double)? = nil
    ) throws(BenchError) -> Measurement {
        let sockets = try LoopbackPairs(count: connections)
        defer { sockets.close() }
        let operations = operations
        let (warmup, seconds, minimumMeasured) = (warmupSeconds, seconds, minimumMeasured)
        let results = Threads.map(connections + 1) { index -> Measurement? in
            guard index == sockets.clients.count else {
                Self.serve(sockets.servers[index], operations: operations)
                return nil
            }
            // The servers' blocking reads end when the client's side is shut down, however the client ends.
            defer { sockets.shutDownClients() }
            let client = FloorClient(sockets: sockets.clients, minimumMeasured: minimumMeasured)
            // Each server thread makes its keys first (RSA keys take a while): nothing is timed before all answered.
            guard client.answerOneEach(),
                  let service = client.oneAtATime(warmup: warmup, seconds: seconds) else { return nil }
            let point = { (fraction: Double, rate: Double) -> LatencyUnderLoad.Point? in
                let busyBefore = ProcessCPU.machine()?.busy
                let started = MonotonicClock.nanoseconds()
                guard let latency = client.openLoop(rate: rate, warmup: warmup, seconds: seconds) else { return nil }
                let elapsed = MonotonicTime.seconds(MonotonicClock.nanoseconds() - started)
                let busy = ProcessCPU.machine()?.busy
                return LatencyUnderLoad.Point(
                    fraction: fraction, arrivalsPerSecond: rate,
                    p50Seconds: latency.value(atPercentile: 50).secondsValue,
                    p99Seconds: latency.value(atPercentile: 99).secondsValue,
                    coresBusy: busyBefore.flatMap { before in busy.map { ($0 - before) / elapsed } })
            }
            var points: [LatencyUnderLoad.Point] = []
            for load in loads {
                guard let measured = point(load.fraction, load.arrivalsPerSecond) else { return nil }
                points.append(measured)
            }
            let sweep = LatencyUnderLoad(serviceSeconds: service.value(atPercentile: 50).secondsValue, points: points)
            guard let match = busyToMatch,
                  let rate = Self.rate(matching: match.cores, from: points, ceiling: match.ceiling),
                  let load = loads.first(where: { $0.arrivalsPerSecond > 0 })
            else { return Measurement(sweep: sweep) }
            guard let matched = point(rate * load.fraction / load.arrivalsPerSecond, rate) else { return nil }
            return Measurement(sweep: sweep, atServerBusy: BusyMatch(serverCoresBusy: match.cores, point: matched))
        }
        guard let floor = results.last ?? nil else { throw BenchError("latency floor: a loopback connection failed") }
        return floor
    }

    /// One connection's server: answers each request after running `operations`, until the client shuts down.
    private static func serve(_ fd: Int32, operations: [CryptoBound.Operation]) {
        let work = operations.map { $0.make() }
        var message = [UInt8](repeating: 0, count: messageBytes)
        while LoopbackPairs.receive(fd, &message) {
            for operation in work { precondition(operation.once(), "OpenSSL operation failed") }
            guard LoopbackPairs.send(fd, message) else { return }
        }
    }
}

/// The floor's client: one thread, one request per message, answers in order on each connection.
private struct FloorClient {
    let sockets: [Int32]
    let minimumMeasured: Int

    /// One request on each connection, in turn, untimed.
    func answerOneEach() -> Bool {
        var message = [UInt8](repeating: 0, count: LatencyFloor.messageBytes)
        return sockets.allSatisfy { LoopbackPairs.send($0, message) && LoopbackPairs.receive($0, &message) }
    }

    /// Requests one at a time, round robin, for `warmup + seconds`; latencies of the measured window.
    func oneAtATime(warmup: Double, seconds: Double) -> LatencyHistogram? {
        var latency = LatencyHistogram()
        var message = [UInt8](repeating: 0, count: LatencyFloor.messageBytes)
        let start = MonotonicClock.nanoseconds()
        let measuredFrom = start + MonotonicTime.nanoseconds(seconds: warmup)
        let end = measuredFrom + MonotonicTime.nanoseconds(seconds: seconds)
        var next = 0
        while true {
            let sent = MonotonicClock.nanoseconds()
            if sent >= end { return latency }
            let fd = sockets[next % sockets.count]
            next += 1
            guard LoopbackPairs.send(fd, message), LoopbackPairs.receive(fd, &message) else { return nil }
            if sent >= measuredFrom { latency.record(MonotonicClock.nanoseconds() - sent) }
        }
    }

    /// Requests at `rate` per second, evenly spaced on a timerfd clock, for `warmup + seconds` (longer at a low rate,
    /// to measure `minimumMeasured`); each latency counts from the request's scheduled time. Nil when a connection
    /// failed or answers stopped coming.
    func openLoop(rate: Double, warmup: Double, seconds: Double) -> LatencyHistogram? {
        let seconds = max(seconds, Double(minimumMeasured) / max(rate, 1))
        let timer = timerfd_create(CLOCK_MONOTONIC, cshims_TFD_CLOEXEC)
        guard timer >= 0 else { return nil }
        defer { Glibc.close(timer) }
        let interval = 1e9 / max(rate, 1)
        let total = max(1, Int(((warmup + seconds) * rate).rounded()))
        let start = MonotonicClock.nanoseconds() + 1_000_000
        let measuredFrom = start + MonotonicTime.nanoseconds(seconds: warmup)
        let giveUp = start + MonotonicTime.nanoseconds(seconds: warmup + seconds + 10)
        let scheduled = { (index: Int) in start + UInt64(Double(index) * interval) }
        // Each connection's scheduled times, oldest unanswered at `oldest[connection]`.
        var waiting = [[UInt64]](repeating: [], count: sockets.count)
        var oldest = [Int](repeating: 0, count: sockets.count)
        var polled = [pollfd(fd: timer, events: Int16(POLLIN), revents: 0)]
            + sockets.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        var latency = LatencyHistogram()
        var message = [UInt8](repeating: 0, count: LatencyFloor.messageBytes)
        var (sent, answered) = (0, 0)
        MonotonicTime.arm(timer: timer, at: scheduled(0))
        while answered < total {
            guard poll(&polled, nfds_t(polled.count), 1000) >= 0 || errno == EINTR else { return nil }
            let now = MonotonicClock.nanoseconds()
            if now > giveUp { return nil }
            if polled[0].revents & Int16(POLLIN) != 0 {
                var expirations: UInt64 = 0
                _ = read(timer, &expirations, 8)
                while sent < total, scheduled(sent) <= now {
                    let connection = sent % sockets.count
                    guard LoopbackPairs.send(sockets[connection], message) else { return nil }
                    waiting[connection].append(scheduled(sent))
                    sent += 1
                }
                if sent < total { MonotonicTime.arm(timer: timer, at: scheduled(sent)) }
            }
            for connection in sockets.indices where polled[connection + 1].revents != 0 {
                guard LoopbackPairs.receive(sockets[connection], &message), oldest[connection] < waiting[connection].count
                else { return nil }
                let due = waiting[connection][oldest[connection]]
                oldest[connection] += 1
                answered += 1
                if due >= measuredFrom { latency.record(MonotonicClock.nanoseconds() - due) }
            }
        }
        return latency
    }
}

/// Connected loopback TCP sockets, client and server ends, with Nagle off (one small message each way).
private struct LoopbackPairs: Sendable {
    let clients: [Int32]
    let servers: [Int32]

    init(count: Int) throws(BenchError) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | cshims_SOCK_CLOEXEC, 0)
        guard listener >= 0 else { throw BenchError("latency floor: socket: errno \(errno)") }
        defer { Glibc.close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(0x7f00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, Int32(count)) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard listening else { throw BenchError("latency floor: cannot listen on loopback: errno \(errno)") }
        var clients: [Int32] = []
        var servers: [Int32] = []
        for _ in 0..<count {
            let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | cshims_SOCK_CLOEXEC, 0)
            let connected = client >= 0 && withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, length) == 0 }
            }
            let server = connected ? cshims_accept4(listener, nil, nil, cshims_SOCK_CLOEXEC) : -1
            guard server >= 0 else {
                for fd in clients + servers + [client] where fd >= 0 { Glibc.close(fd) }
                throw BenchError("latency floor: cannot connect on loopback: errno \(errno)")
            }
            var one: Int32 = 1
            for fd in [client, server] {
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            }
            clients.append(client)
            servers.append(server)
        }
        self.clients = clients
        self.servers = servers
    }

    func shutDownClients() {
        for fd in clients { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    func close() {
        for fd in clients + servers { Glibc.close(fd) }
    }

    /// Reads exactly `message.count` bytes; false at end of stream or on an error.
    static func receive(_ fd: Int32, _ message: inout [UInt8]) -> Bool {
        let count = message.count
        return message.withUnsafeMutableBytes { recv(fd, $0.baseAddress, count, Int32(MSG_WAITALL)) } == count
    }

    static func send(_ fd: Int32, _ message: [UInt8]) -> Bool {
        message.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == message.count
    }
}
