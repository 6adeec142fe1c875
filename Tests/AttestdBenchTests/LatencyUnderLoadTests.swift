import Testing
@testable import attestd_bench

@Suite("Latency under load")
struct LatencyUnderLoadTests {
    private func point(_ fraction: Double, p99 ms: Double) -> LatencyUnderLoad.Point {
        LatencyUnderLoad.Point(fraction: fraction, arrivalsPerSecond: fraction * 10_000, p50Seconds: 0.0003, p99Seconds: ms / 1e3)
    }

    @Test("the highest load held is the last before the first miss, whatever order the points came in")
    func highestBeforeFirstMiss() {
        // Service time 0.3 ms: 3 x is 0.9 ms. 50 % misses, so a lucky 75 % after it does not count.
        let sweep = LatencyUnderLoad(serviceSeconds: 0.0003,
                                     points: [point(0.75, p99: 0.8), point(0.5, p99: 2.0), point(0.1, p99: 0.5), point(0.25, p99: 0.9)])
        #expect(sweep.points.map(\.fraction) == [0.1, 0.25, 0.5, 0.75])
        #expect(sweep.highestMeeting?.fraction == 0.25)
        #expect(sweep.lowestMissing?.fraction == 0.5)
        #expect(abs(sweep.multiple(sweep.points[2]) - 2.0 / 0.3) < 1e-9)
    }

    @Test("every load held, and every load missed")
    func allOrNothing() {
        let held = LatencyUnderLoad(serviceSeconds: 0.001, points: [point(0.1, p99: 1), point(0.5, p99: 2.9)])
        #expect(held.highestMeeting?.fraction == 0.5 && held.lowestMissing == nil)
        let missed = LatencyUnderLoad(serviceSeconds: 0.001, points: [point(0.1, p99: 3.1), point(0.5, p99: 9)])
        #expect(missed.highestMeeting == nil && missed.lowestMissing?.fraction == 0.1)
    }

    @Test("the report line gives each load's rate, p99 and multiple of the service time, as figures")
    func reportLine() {
        let sweep = LatencyUnderLoad(serviceSeconds: 0.0003, points: [point(0.25, p99: 0.6), point(0.5, p99: 2.4)])
        let line = TextReport.latencyUnderLoad(.assertion, sweep)
        #expect(line == "  assertions under load, service time 0.30 ms: 25% (2500/s): p99 0.60 ms, 2.00 x; 50% (5000/s): p99 2.40 ms, 8.00 x")
        let none = TextReport.latencyUnderLoad(.attestation, LatencyUnderLoad(serviceSeconds: 0.001, points: []))
        #expect(none.hasSuffix("no open-loop phase"))
    }
}

@Suite("Bench options")
struct BenchOptionsTests {
    @Test("--open-fraction takes a list: sorted, each load once, 0 dropped")
    func openFractions() throws {
        #expect(BenchOptions().openFractions == [0.5])
        #expect(try BenchOptions.parse(["--open-fraction", "0.5,0.1,0.25,0.1"]).openFractions == [0.1, 0.25, 0.5])
        #expect(try BenchOptions.parse(["--open-fraction", "0"]).openFractions.isEmpty)
        #expect(try BenchOptions.parse(["--open-fraction", "0.3"]).openFractions == [0.3])
    }

    @Test("--devices spreads assertions over that many keys, never fewer than twice the streams in flight")
    func devices() throws {
        #expect(BenchOptions().devices == nil)
        #expect(try BenchOptions.parse(["--devices", "4096"]).devices == 4096)
        #expect(Bench.laneCount(devices: nil, inFlight: 8 * 16) == 256)
        #expect(Bench.laneCount(devices: nil, inFlight: 4) == 64)
        #expect(Bench.laneCount(devices: 4096, inFlight: 8 * 16) == 4096)
        #expect(Bench.laneCount(devices: 10, inFlight: 8 * 16) == 256)
        #expect(throws: BenchError.self) { try BenchOptions.parse(["--devices", "many"]) }
    }

    @Test("--open-fraction refuses a load above the saturating rate, and what is not a number")
    func openFractionsRefused() {
        #expect(throws: BenchError.self) { try BenchOptions.parse(["--open-fraction", "0.5,1.5"]) }
        #expect(throws: BenchError.self) { try BenchOptions.parse(["--open-fraction", "half"]) }
        #expect(throws: BenchError.self) { try BenchOptions.parse(["--open-fraction", "0.1,,0.5"]) }
        #expect(throws: BenchError.self) { try BenchOptions.parse(["--open-fraction", "-0.1"]) }
    }
}

@Suite("cores busy in a phase")
struct CoresBusyTests {
    @Test("server, bench and other processes' CPU over the window, against the machine's cores")
    func coresBusy() {
        var result = PhaseResult()
        result.measuredSeconds = 4
        var report = PhaseReport(name: "assertions, open loop at 50%", kinds: [.assertion], pacing: "open", targetRate: 100,
                                 connections: 8, streams: 16, result: result, bound: nil)
        #expect(TextReport.coresBusy(report, cores: 2) == nil, "no CPU figures without the server's pid")
        #expect(report.coresBusy == nil)
        report.cpu.server = 5.84
        report.cpu.bench = 1.32
        report.cpu.machineBusy = 7.2
        #expect(TextReport.coresBusy(report, cores: 2)
            == "cores busy 1.80 of 2, 90%: server 1.46, bench 0.33, other processes 0.01")
        #expect(abs((report.coresBusy ?? 0) - 1.8) < 1e-9)
    }
}
