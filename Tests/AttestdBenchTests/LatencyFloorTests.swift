import Glibc
import Testing
@testable import attestd_bench

@Suite("Latency floor")
struct LatencyFloorTests {
    @Test("measures a service time and one point per load, lowest first, each from real answers")
    func pointPerLoad() throws {
        var floor = LatencyFloor(operations: [.p256Sign], connections: 3, warmupSeconds: 0.05, seconds: 0.1)
        floor.minimumMeasured = 20
        let measured = try floor.measure([(0.5, 2_000), (0.1, 400)])
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
        let measured = try floor.measure([(1, 20_000)])
        let point = try #require(measured.points.first)
        #expect(measured.multiple(point) > LatencyUnderLoad.allowedMultiple)
        #expect(measured.lowestMissing?.fraction == 1)
    }

    @Test("is measured only for a server on this machine's loopback", arguments: [
        ("127.0.0.1", true), ("127.1.2.3", true), ("10.0.0.7", false), ("192.168.1.127", false), ("1270.0.0.1", false),
    ])
    func onlyForLoopback(host: String, applies: Bool) {
        #expect(LatencyFloor.applies(toHost: host) == applies)
    }
}
