import Basics
import Glibc
import Testing
@testable import attestd_bench

@Suite("ProcessCPU")
struct ProcessCPUTests {
    private func sample(at seconds: Double, server: Double?, busy: Double) -> ProcessCPU.Sample {
        ProcessCPU.Sample(at: UInt64(seconds * 1e9), server: server, serverContextSwitches: server.map { $0 * 1000 },
                          serverRunQueueWait: server.map { $0 / 10 }, bench: 1, machine: (busy, 0))
    }

    @Test("what two samples span, a window and the lead before it, is scaled to the window")
    func scaledToTheWindow() {
        // 3.02 s between the samples, 3 s of window: 3.02 CPU-seconds counted are 3 in the window.
        let before = sample(at: 10, server: 5, busy: 100)
        let after = sample(at: 13.02, server: 8.02, busy: 104.53)
        let usage = after.usage(since: before, window: 3_000_000_000)
        #expect(abs(usage.server! - 3) < 1e-9)
        #expect(abs(usage.serverContextSwitches! - 3000) < 1e-6)
        #expect(abs(usage.serverRunQueueWait! - 0.3) < 1e-9)
        #expect(abs(usage.machineBusy! - 4.5) < 1e-9)
        #expect(usage.bench == 0 && usage.stolen == 0)
    }

    @Test("a span shorter than the window (a phase that ended early) is not scaled up; a counter /proc lacked stays nil")
    func shortSpan() {
        let before = sample(at: 10, server: nil, busy: 100)
        let after = sample(at: 11, server: nil, busy: 101.5)
        let usage = after.usage(since: before, window: 3_000_000_000)
        #expect(usage.machineBusy == 1.5)
        #expect(usage.server == nil && usage.serverContextSwitches == nil)
    }

    @Test("a sample of this process reads its CPU time and the machine's, halfway through the reading")
    func takesThisProcess() {
        let started = MonotonicClock.nanoseconds()
        let taken = ProcessCPU.Sample.take(serverPID: getpid())
        #expect(taken.at >= started && taken.at <= MonotonicClock.nanoseconds())
        #expect(taken.server != nil && taken.bench != nil && taken.machine != nil)
        #expect((taken.serverContextSwitches ?? 0) > 0)
    }
}
