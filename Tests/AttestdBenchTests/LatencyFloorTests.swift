import Glibc
import Testing
@testable import attestd_bench

@Suite("Latency floor")
struct LatencyFloorTests {
    @Test("measures a service time and one point per load, lowest first, each from real answers")
    func pointPerLoad() throws {
        var floor = LatencyFloor(operations: [.p256Sign], connections: 3, warmupSeconds: 0.05, seconds: 0.1)
        floor.minimumMeasured = 20
        let measured = try floor.measure([(0.5, 2_000), (0.1, 400)]).sweep
        #expect(measured.points.map(\.fraction) == [0.1, 0.5])
        #expect(measured.points.map(\.arrivalsPerSecond) == [400, 2_000])
        // A P-256 signature and a loopback round trip take microseconds, not nothing and not seconds.
        #expect(measured.serviceSeconds > 1e-6 && measured.serviceSeconds < 0.1)
        for point in measured.points {
            #expect(point.p50Seconds > 1e-6 && point.p99Seconds >= point.p50Seconds)
            // The machine's busy cores while it ran, in cores: /proc/stat counts 10 ms ticks per core, so a window this
            // short may show none, or a tick more than it used.
            let busy = try #require(point.coresBusy)
            #expect(busy >= 0 && busy <= Double(sysconf(Int32(_SC_NPROCESSORS_ONLN))) + 1)
        }
    }

    @Test("arrivals beyond what the crypto can serve queue up, and the floor reports the miss")
    func overloadQueues() throws {
        // RSA-2048 signatures: a few thousand a second per core. 20,000 arrivals a second outrun any machine this
        // runs on, so latency counted from the scheduled times grows through the window.
        var floor = LatencyFloor(operations: [.rsa2048Sign], connections: 4, warmupSeconds: 0, seconds: 0.2)
        floor.minimumMeasured = 20
        let measured = try floor.measure([(1, 20_000)]).sweep
        let point = try #require(measured.points.first)
        #expect(measured.multiple(point) > LatencyUnderLoad.allowedMultiple)
        #expect(measured.lowestMissing?.fraction == 1)
    }

    @Test("with busy cores to match, measures once more at the rate that keeps the cores that busy")
    func pointAtServerBusy() throws {
        // RSA-2048 signatures (a few tenths of a millisecond each), so that the loads keep enough of a core busy for
        // /proc/stat's 10 ms ticks to see it.
        var floor = LatencyFloor(operations: [.rsa2048Sign], connections: 3, warmupSeconds: 0.05, seconds: 0.5)
        floor.minimumMeasured = 20
        // Nothing to match: no extra point.
        #expect(try floor.measure([(0.5, 500)]).atServerBusy == nil)
        // 1,500 arrivals a second are 50 % of a 3,000 a second server; the matched rate is expressed the same way.
        let measured = try floor.measure([(0.5, 1_500)], busyToMatch: (cores: 8, ceiling: 2_000))
        let sweepPoint = try #require(measured.sweep.points.first)
        // /proc/stat counts busy time in ticks, and on a VM a short window at a light load sometimes shows only a
        // few of them: then there is nothing to scale from, and no extra point (`matchingRate` covers the scaling).
        guard (sweepPoint.coresBusy ?? 0) >= 0.05 else {
            #expect(measured.atServerBusy == nil)
            return
        }
        let match = try #require(measured.atServerBusy)
        #expect(match.serverCoresBusy == 8)
        // Far more busy cores than any machine here has ask for more than the ceiling: the ceiling is used.
        #expect(match.point.arrivalsPerSecond == 2_000)
        #expect(abs(match.point.fraction - 2_000.0 / 3_000) < 1e-9)
        #expect(match.point.p99Seconds >= match.point.p50Seconds && match.point.p50Seconds > 0)
        #expect(match.point.coresBusy != nil)
    }

    @Test("the matching rate scales the busiest point's rate by the busy cores asked for, up to the ceiling")
    func matchingRate() {
        let point = { (rate: Double, busy: Double?) in
            LatencyUnderLoad.Point(fraction: rate / 10_000, arrivalsPerSecond: rate, p50Seconds: 1e-3, p99Seconds: 2e-3,
                                   coresBusy: busy)
        }
        let points = [point(1_000, 0.2), point(5_000, 0.8), point(2_500, 0.5)]
        // From the busiest point (5,000/s at 0.8 cores): 1.6 cores is twice its rate.
        #expect(LatencyFloor.rate(matching: 1.6, from: points, ceiling: 20_000) == 10_000)
        #expect(LatencyFloor.rate(matching: 0.4, from: points, ceiling: 20_000) == 2_500)
        #expect(LatencyFloor.rate(matching: 1.6, from: points, ceiling: 7_000) == 7_000)
        // No point busy enough to scale from (a window too short for /proc/stat's ticks), or nothing asked for.
        #expect(LatencyFloor.rate(matching: 1.6, from: [point(1_000, nil), point(2_000, 0.01)], ceiling: 20_000) == nil)
        #expect(LatencyFloor.rate(matching: 0, from: points, ceiling: 20_000) == nil)
    }

    @Test("is measured only for a server on this machine's loopback", arguments: [
        ("127.0.0.1", true), ("127.1.2.3", true), ("10.0.0.7", false), ("192.168.1.127", false), ("1270.0.0.1", false),
    ])
    func onlyForLoopback(host: String, applies: Bool) {
        #expect(LatencyFloor.applies(toHost: host) == applies)
    }
}
