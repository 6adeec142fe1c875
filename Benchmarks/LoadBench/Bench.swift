import AppAttestSimulator
import AppCheckMessages
import Basics
import Glibc
import Synchronization

/// The run: set up devices and keys against the server, measure the crypto bound, then run the phases one after
/// another, each with its own connections and precomputed requests.
final class Bench {
    let options: BenchOptions
    let endpoint: Endpoint
    let fleet: SimulatedFleet
    /// The TLS client context (`--tls`); nil for h2c.
    let tls: ClientTLS?
    let cores = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    private(set) var bound: CryptoBound?
    /// The token algorithm the server signs with, read from its first token.
    private(set) var tokenAlgorithm = "RS256"
    /// Attested keys and their artifacts: the assertion lanes.
    private var lanes: [(key: SimulatedKey, artifact: [UInt8])] = []
    private(set) var reports: [PhaseReport] = []
    private(set) var serviceTime: [RequestKind: Double] = [:]
    /// Each exchange's latency floor at its open-loop loads (`LatencyFloor`), when measured.
    private(set) var floors: [RequestKind: LatencyUnderLoad] = [:]
    /// Each exchange's latency floor at the rate that kept the cores as busy as attestd at its highest load.
    private(set) var floorsAtServerBusy: [RequestKind: LatencyFloor.BusyMatch] = [:]
    /// Each kind's closed-loop rate in this run.
    private(set) var saturatedRates: [RequestKind: Double] = [:]
    var idle: IdleConnectionsReport?
    /// /proc/loadavg when the run started: how busy the machine already was.
    let loadAverage = Bench.readLoadAverage()

    static func readLoadAverage() -> String {
        guard let file = fopen("/proc/loadavg", "r") else { return "?" }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 128)
        guard fgets(&line, Int32(line.count), file) != nil else { return "?" }
        let text = String(decoding: line.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }

    init(options: BenchOptions) throws(BenchError) {
        self.options = options
        endpoint = Endpoint(
            framing: options.framing, app: "projects/\(options.projectNumber)/apps/\(options.appID)",
            authority: "\(options.serverName ?? options.host):\(options.port)", scheme: options.tls ? "https" : "http")
        tls = options.tls ? try ClientTLS(caFile: options.caFile, verify: !options.insecure, serverName: options.serverName) : nil
        fleet = SimulatedFleet(
            appID: "\(options.teamID).\(options.bundleID)",
            environment: options.environment == "production" ? .production : .development, receipts: options.receipts)
    }

    var inFlight: Int { options.connections * options.streams }
    /// The server's process id, when it runs on this machine and the caller named it (for its CPU and memory).
    var serverPID: Int32?

    /// How long before a measured window opens the CPU counters are read (see `run`).
    static let samplingLeadNanos: UInt64 = 20_000_000

    /// Sleeps until `deadline`, in steps of at most 20 ms, or until `done()` is true.
    static func sleep(until deadline: UInt64, unless done: () -> Bool) {
        while !done() {
            let now = MonotonicClock.nanoseconds()
            guard deadline > now else { return }
            usleep(UInt32(min((deadline - now) / 1000, 20_000)))
        }
    }

    // MARK: setup

    /// Waits until the server accepts a connection and answers a challenge.
    func waitForServer() throws(BenchError) {
        let deadline = MonotonicClock.nanoseconds() + MonotonicTime.nanoseconds(seconds: options.waitSeconds)
        var last = "no answer"
        while MonotonicClock.nanoseconds() < deadline {
            do {
                _ = try fetchChallenges(1)
                return
            } catch {
                last = error.description
            }
            usleep(100_000)
        }
        throw BenchError("the server at \(options.host):\(options.port) did not answer a challenge: \(last)")
    }

    /// Sends setup requests and returns their outcomes in order (one thread, all the connections' streams).
    func batch(_ jobs: [Job]) throws(BenchError) -> [Outcome] {
        let worker = try LoadWorker(endpoint: endpoint, host: options.host, port: options.port, tls: tls,
                                    connections: min(options.connections, max(1, jobs.count / 64)),
                                    streamsPerConnection: max(options.streams, 32))
        let workload = BatchWorkload(jobs: jobs)
        worker.runBatch(workload)
        return try workload.outcomes.map { outcome throws(BenchError) in
            guard let outcome else { throw BenchError("a setup request got no answer") }
            return outcome
        }
    }

    /// One challenge request, as the idle-connection check sends it (`--idle-after-request`).
    var challengeRequest: IdleConnectionsReport.FirstRequest {
        IdleConnectionsReport.FirstRequest(
            job: Job(kind: .challenge, body: endpoint.challengeRequest()),
            headers: endpoint.headers(.challenge),
            framing: endpoint.framing)
    }

    func fetchChallenges(_ count: Int) throws(BenchError) -> [[UInt8]] {
        let body = endpoint.challengeRequest()
        let outcomes = try batch((0..<count).map { Job(kind: .challenge, body: body, wantsBody: true, tag: $0) })
        return try outcomes.map { outcome throws(BenchError) in
            guard outcome.isOK(framing: endpoint.framing) else {
                throw BenchError("challenge refused: \(outcome.statusKey(framing: endpoint.framing)) \(outcome.message)")
            }
            do {
                return try endpoint.decode(GenerateAppAttestChallengeResponse.self, from: outcome.body).challenge
            } catch {
                throw BenchError("undecodable challenge response: \(error)")
            }
        }
    }

    /// Attests `count` new keys through the server (untimed) and keeps them as assertion lanes.
    func attestLanes(_ count: Int) throws(BenchError) {
        let challenges = try fetchChallenges(count)
        let made = fleet.attestations(challenges: challenges, endpoint: endpoint, threads: cores)
        let outcomes = try batch(made.enumerated().map { Job(kind: .attestation, body: $1.body, wantsBody: true, tag: $0) })
        for (index, outcome) in outcomes.enumerated() {
            guard outcome.isOK(framing: endpoint.framing) else {
                throw BenchError("""
                    attestation refused: \(outcome.statusKey(framing: endpoint.framing)) \(outcome.message) \
                    \(String(decoding: outcome.body.prefix(200), as: UTF8.self)) \
                    (does the server trust the simulated root? attestd serve --extra-trust-root FILE)
                    """)
            }
            let response: ExchangeAppAttestAttestationResponse
            do {
                response = try endpoint.decode(ExchangeAppAttestAttestationResponse.self, from: outcome.body)
            } catch {
                throw BenchError("undecodable attestation response: \(error)")
            }
            if index == 0, let token = response.appCheckToken?.token { tokenAlgorithm = Self.algorithm(ofJWT: token) }
            lanes.append((made[index].key, response.artifact))
        }
    }

    /// The `alg` of a JWT's header (RS256 unless it says ES256).
    static func algorithm(ofJWT token: String) -> String {
        guard let header = token.split(separator: ".").first else { return "RS256" }
        let decoded = Base64.url.decode(header) ?? []
        return String(decoding: decoded, as: UTF8.self).contains("ES256") ? "ES256" : "RS256"
    }

    func measureBound() {
        bound = CryptoBound.measure(threads: cores, secondsEach: options.boundSeconds)
    }

    // MARK: phases

    /// Precomputed attestation jobs: one fresh key and challenge each.
    func attestationJobs(_ count: Int) throws(BenchError) -> [Job] {
        guard count > 0 else { return [] }
        let challenges = try fetchChallenges(count)
        return fleet.attestations(challenges: challenges, endpoint: endpoint, threads: cores)
            .map { Job(kind: .attestation, body: $0.body) }
    }

    /// Precomputed assertion jobs, `perLane` for each lane, in counter order.
    func assertionLanes(perLane: Int) throws(BenchError) -> [[Job]] {
        guard perLane > 0 else { return Array(repeating: [], count: lanes.count) }
        let challenges = try fetchChallenges(perLane * lanes.count)
        let split = lanes.indices.map { Array(challenges[($0 * perLane)..<(($0 + 1) * perLane)]) }
        let bodies = fleet.assertions(lanes: lanes, challenges: split, endpoint: endpoint, threads: cores)
        return bodies.enumerated().map { lane, bodies in bodies.map { Job(kind: .assertion, body: $0, lane: lane) } }
    }

    /// Runs one phase on the worker threads, dividing connections, precomputed jobs and lanes between them.
    func run(name: String, kinds: [RequestKind], pattern: [RequestKind], pacing: Pacing, connections: Int, streams: Int,
             attestations: [Job], assertionLanes: [[Job]], bound: Double?, warmup: Double? = nil, duration: Double? = nil)
        throws(BenchError) -> PhaseReport {
        let threads = min(options.threads, connections)
        let connectionShares = SimulatedFleet.split(connections, threads)
        let attestationShares = SimulatedFleet.split(attestations.count, threads)
        let laneShares = SimulatedFleet.split(assertionLanes.count, threads)
        let challenge = kinds.contains(.challenge) ? Job(kind: .challenge, body: endpoint.challengeRequest()) : nil
        var workers: [LoadWorker] = []
        var workloads: [PhaseWorkload] = []
        for thread in 0..<threads {
            workers.append(try LoadWorker(
                endpoint: endpoint, host: options.host, port: options.port, tls: tls,
                connections: connectionShares[thread].count, streamsPerConnection: streams))
            let laneRange = laneShares.indices.contains(thread) ? laneShares[thread] : 0..<0
            var lanes = Array(assertionLanes[laneRange])
            for index in lanes.indices { lanes[index] = lanes[index].map { var job = $0; job.lane = index; return job } }
            workloads.append(PhaseWorkload(
                challenge: challenge,
                attestations: attestationShares.indices.contains(thread) ? Array(attestations[attestationShares[thread]]) : [],
                lanes: lanes, pattern: pattern, replayEvery: options.replayEvery))
        }
        let start = MonotonicClock.nanoseconds() + 20_000_000
        let warmupEnd = start + MonotonicTime.nanoseconds(seconds: warmup ?? options.warmup)
        let clock = PhaseClock(start: start, warmupEnd: warmupEnd,
                               end: warmupEnd + MonotonicTime.nanoseconds(seconds: duration ?? options.duration),
                               drain: 5_000_000_000)
        let perThreadPacing: Pacing
        if case .open(let rate) = pacing { perThreadPacing = .open(ratePerSecond: rate / Double(threads)) } else { perThreadPacing = pacing }
        let shared = WorkerSet(workers: workers, workloads: workloads)
        // One more thread samples the CPU time the server and the bench use during the measured window.
        let serverPID = self.serverPID
        let cpu = ResultSlots<ProcessCPU.Usage>(1)
        let finished = Atomic<Int>(0)
        let measuredSeconds = TextReport.format(duration ?? options.duration, 1)
        let results = Threads.map(threads + 1) { index in
            guard index < threads else {
                // Wakes early when every worker is done (a phase that ran out of requests, or lost the server).
                let allDone = { finished.load(ordering: .acquiring) == threads }
                // Reading /proc for every server thread takes a core for a moment: read just before the window
                // opens, that moment delays warm-up requests only. Read as it opened, it made the slowest answer in
                // the window's first 100 ms of attestations at 10 and 25 % load up to 4.5 times that of the
                // median 100 ms. What the readings count is scaled from their
                // span to the window's.
                Self.sleep(until: clock.warmupEnd - min(Self.samplingLeadNanos, clock.warmupEnd), unless: allDone)
                let before = ProcessCPU.Sample.take(serverPID: serverPID)
                Self.sleep(until: clock.warmupEnd, unless: allDone)
                // Said as it starts, for whoever attaches a profiler to the measured window (not for calibrations).
                if name != "calibration" && !allDone() {
                    Console.line("  (\(name): measuring for \(measuredSeconds) s)")
                }
                Self.sleep(until: clock.end, unless: allDone)
                let after = ProcessCPU.Sample.take(serverPID: serverPID)
                cpu.set(0, after.usage(since: before, window: clock.end - clock.warmupEnd))
                return PhaseResult()
            }
            defer { finished.add(1, ordering: .releasing) }
            return shared.workers[index].runPhase(shared.workloads[index], pacing: perThreadPacing, clock: clock)
        }
        var merged = PhaseResult()
        for result in results { merged.merge(result) }
        var targetRate: Double?
        if case .open(let rate) = pacing { targetRate = rate }
        let pacingName: String
        switch pacing {
        case .closed: pacingName = "closed"
        case .open: pacingName = "open"
        }
        var report = PhaseReport(name: name, kinds: kinds, pacing: pacingName, targetRate: targetRate, connections: connections,
                                 streams: streams, result: merged, bound: bound)
        report.cpu = cpu.values[0]
        if let cryptoBound = self.bound, merged.ok > 0 {
            let crypto = kinds.reduce(0.0) {
                $0 + Double(merged.kinds[$1.rawValue].ok) * cryptoBound.cryptoCPUSeconds($1, algorithm: tokenAlgorithm)
            }
            report.cryptoCPUSecondsPerRequest = crypto / Double(merged.ok)
        }
        return report
    }

    /// Measures the operations `kind` needs again, prints them, and returns its bound.
    private func remeasureBound(for kind: RequestKind, when: String = "again for") -> Double {
        let operations = CryptoBound.operations(for: kind, algorithm: tokenAlgorithm)
        bound?.remeasure(operations, secondsEach: options.boundSeconds)
        guard let bound, let rate = bound.bound(kind, algorithm: tokenAlgorithm) else { return 1000 }
        let rates = operations.map { "\($0.rawValue) \(TextReport.format(bound[keyPath: $0.rate], 0))" }.joined(separator: ", ")
        Console.line("crypto bound measured \(when) \(kind.name)s: \(rates); bound \(TextReport.format(rate, 0))/s")
        return rate
    }

    /// Holds a saturated phase to the mean of the bound measured before it and the bound measured right after it:
    /// the machine's speed drifts (RSA signing by half within a minute on the VM these figures come from), and one
    /// half-second sample of it taken before the phase set the ratio as much as the server did.
    private func bracketed(_ report: PhaseReport, kind: RequestKind, before: Double) -> PhaseReport {
        let after = remeasureBound(for: kind, when: "after the closed-loop")
        var report = report
        report.bound = (before + after) / 2
        if let threads = bound?.threads, let mean = report.bound { report.cryptoCPUSecondsPerRequest = Double(threads) / mean }
        return report
    }

    /// Seconds of the untimed burst that sizes each exchange's pools.
    let calibrationSeconds = 0.5

    /// How many precomputed requests a phase of the configured length needs at `rate`, with a margin.
    func poolSize(rate: Double) -> Int {
        Int((rate * (options.warmup + options.duration) * 1.25).rounded(.up)) + inFlight + 16
    }

    /// The name of `kind`'s open-loop phase at `fraction` of its saturating rate.
    static func openLoopName(_ kind: RequestKind, _ fraction: Double) -> String {
        "\(kind.name)s, open loop at \(TextReport.percent(fraction))"
    }

    /// Each exchange's open-loop sweep, attestations first: what the targets, `report.json` and `load.dat` report.
    var sweeps: [(kind: RequestKind, sweep: LatencyUnderLoad)] {
        [RequestKind.attestation, .assertion].compactMap { kind in latencyUnderLoad(kind).map { (kind, $0) } }
    }

    /// `kind`'s open-loop phases against its service time, when this run measured both.
    func latencyUnderLoad(_ kind: RequestKind) -> LatencyUnderLoad? {
        guard let service = serviceTime[kind], service > 0 else { return nil }
        let points = reports.compactMap { report -> LatencyUnderLoad.Point? in
            guard report.kinds == [kind], let fraction = report.openFraction, let rate = report.targetRate else { return nil }
            return LatencyUnderLoad.Point(fraction: fraction, arrivalsPerSecond: rate,
                                          p50Seconds: report.result.latency.value(atPercentile: 50).secondsValue,
                                          p99Seconds: report.result.latency.value(atPercentile: 99).secondsValue)
        }
        return points.isEmpty ? nil : LatencyUnderLoad(serviceSeconds: service, points: points)
    }

    /// The latency floor at `kind`'s open-loop loads: the same arrival rates on a loopback server that runs only
    /// the exchange's crypto; and once more at the rate that keeps the cores as busy as attestd kept them at
    /// `busiest`, its highest load (no faster than `ceiling`, the crypto bound: the most the floor's cores can
    /// serve).
    private func measureFloor(
        _ kind: RequestKind, loads: [(fraction: Double, arrivalsPerSecond: Double)], busiest: PhaseReport?, ceiling: Double?
    ) throws(BenchError) {
        Console.line("  (\(kind.name)s: latency floor, the same loads on a server with only the crypto: measuring)")
        let floor = LatencyFloor(operations: CryptoBound.operations(for: kind, algorithm: tokenAlgorithm),
                                 connections: options.connections, warmupSeconds: 0.3, seconds: options.floorSeconds)
        let match = busiest?.coresBusy.flatMap { cores in ceiling.map { (cores: cores, ceiling: $0) } }
        let measured = try floor.measure(loads, busyToMatch: match)
        floors[kind] = measured.sweep
        floorsAtServerBusy[kind] = measured.atServerBusy
        Console.line(TextReport.latencyUnderLoad(kind, measured.sweep, label: "latency floor"))
    }

    func record(_ report: PhaseReport) {
        reports.append(report)
        TextReport.printPhase(report)
    }

    /// The standard profile: each requested phase, saturated (closed loop), then one request at a time, then open
    /// loop at a fraction of the saturating rate.
    func runProfile() throws(BenchError) {
        guard bound != nil else { return }
        let algorithm = tokenAlgorithm
        if options.phases.contains("challenge") {
            let report = try run(name: "challenges", kinds: [.challenge], pattern: [.challenge], pacing: .closed,
                                 connections: options.connections, streams: options.streams, attestations: [], assertionLanes: [],
                                 bound: nil)
            record(report)
            saturatedRates[.challenge] = max(1, report.throughput)
        }
        for kind in [RequestKind.attestation, .assertion] where options.phases.contains(kind.name) {
            let kindBound = remeasureBound(for: kind)
            let jobs = { (rate: Double) throws(BenchError) -> ([Job], [[Job]]) in
                kind == .attestation
                    ? (try self.attestationJobs(self.poolSize(rate: rate)), [])
                    : ([], try self.assertionLanes(perLane: self.poolSize(rate: rate) / self.lanes.count + 1))
            }
            // A short untimed burst first: its rate sizes the precomputed pools (the bound is often far above what
            // a shared machine gives the server, and precomputing for it would cost more than the phase).
            var (attestations, assertionLanes) = try jobs(kindBound * calibrationSeconds / (options.warmup + options.duration))
            let calibration = try run(name: "calibration", kinds: [kind], pattern: [kind], pacing: .closed,
                                      connections: options.connections, streams: options.streams, attestations: attestations,
                                      assertionLanes: assertionLanes, bound: nil, warmup: 0, duration: calibrationSeconds)
            let calibrated = max(50, calibration.throughput)
            Console.line("  (\(kind.name)s: calibration burst \(TextReport.format(calibrated, 0))/s; errors \(calibration.result.errorCount))")
            // The burst is short and the machine noisy: leave room above it, and never plan for under a third of the
            // bound. Nor for over three times it: a burst that short can overstate the rate, and the bound is the
            // ceiling of what OpenSSL's EVP path allows.
            (attestations, assertionLanes) = try jobs(min(kindBound * 3, max(calibrated * 2, kindBound / 3)))
            let saturated = bracketed(
                try run(name: "\(kind.name)s", kinds: [kind], pattern: [kind], pacing: .closed,
                        connections: options.connections, streams: options.streams, attestations: attestations,
                        assertionLanes: assertionLanes, bound: kindBound),
                kind: kind, before: kindBound)
            record(saturated)
            // The phases after it are held to the same bound.
            let phaseBound = saturated.bound ?? kindBound
            let saturatedRate = max(1, saturated.throughput)
            saturatedRates[kind] = saturatedRate
            if options.single {
                (attestations, assertionLanes) = try jobs(min(saturatedRate, 5000))
                let single = try run(name: "\(kind.name)s, one at a time", kinds: [kind], pattern: [kind], pacing: .closed,
                                     connections: 1, streams: 1, attestations: attestations, assertionLanes: assertionLanes,
                                     bound: phaseBound)
                record(single.heldToBounds(of: saturated))
                serviceTime[kind] = single.result.kinds[kind.rawValue].latency.value(atPercentile: 50).secondsValue
            }
            for fraction in options.openFractions {
                let rate = saturatedRate * fraction
                (attestations, assertionLanes) = try jobs(rate)
                var open = try run(name: Self.openLoopName(kind, fraction), kinds: [kind],
                                   pattern: [kind], pacing: .open(ratePerSecond: rate), connections: options.connections,
                                   streams: options.streams, attestations: attestations, assertionLanes: assertionLanes,
                                   bound: phaseBound).heldToBounds(of: saturated)
                open.openFraction = fraction
                record(open)
            }
            if options.floor, !options.openFractions.isEmpty {
                if LatencyFloor.applies(toHost: options.host) {
                    let busiest = reports.last { $0.kinds == [kind] && $0.openFraction == options.openFractions.max() }
                    try measureFloor(kind, loads: options.openFractions.map { ($0, saturatedRate * $0) }, busiest: busiest,
                                     ceiling: saturated.bound)
                } else {
                    Console.line("  (\(kind.name)s: no latency floor: it measures this machine, and the server is not on its loopback)")
                }
            }
        }
        if options.phases.contains("mixed") {
            let mix: [RequestKind: Int] = [.attestation: 1, .assertion: 50, .challenge: 51]
            let mixBound = bound?.bound(mix: mix, algorithm: algorithm) ?? 1
            // Pools sized from the rates this run saw for each kind alone, when it measured them.
            var expected = mixBound
            if mix.keys.allSatisfy({ saturatedRates[$0] != nil }) {
                expected = min(mixBound, 1.5 * 102 / mix.reduce(0.0) { $0 + Double($1.value) / saturatedRates[$1.key]! })
            }
            let attestations = try attestationJobs(poolSize(rate: expected / 102))
            let assertionLanes = try assertionLanes(perLane: poolSize(rate: expected * 50 / 102) / lanes.count + 1)
            var pattern: [RequestKind] = [.attestation]
            for _ in 0..<50 { pattern += [.challenge, .assertion] }
            pattern.append(.challenge)
            record(try run(name: "mixed 1:50:51", kinds: [.attestation, .assertion, .challenge], pattern: pattern,
                           pacing: .closed, connections: options.connections, streams: options.streams,
                           attestations: attestations, assertionLanes: assertionLanes, bound: mixBound))
        }
    }

    func prepareLanes() throws(BenchError) {
        try attestLanes(Self.laneCount(devices: options.devices, inFlight: inFlight))
    }

    /// Lanes for assertions: `devices` (64 unless told), and at least twice the streams in flight, so a free lane
    /// is always there.
    static func laneCount(devices: Int?, inFlight: Int) -> Int {
        max(devices ?? 64, 2 * inFlight)
    }

    /// The attested keys (simulated devices) the assertions are spread over.
    var deviceCount: Int { lanes.count }
}

/// The workers and workloads of one phase, each touched only by its own thread while the phase runs.
final class WorkerSet: @unchecked Sendable {
    let workers: [LoadWorker]
    let workloads: [PhaseWorkload]
    init(workers: [LoadWorker], workloads: [PhaseWorkload]) {
        self.workers = workers
        self.workloads = workloads
    }
}

extension UInt64 {
    /// Nanoseconds as seconds.
    var secondsValue: Double { Double(self) / 1e9 }
}
