import Basics
import Foundation
import Synchronization
import Testing

@Suite("Time source")
struct TimeSourceTests {
    @Test("the system's wall time agrees with Foundation's, in seconds, milliseconds and nanoseconds")
    func systemWallTime() {
        let before = Date().timeIntervalSince1970
        let seconds = TimeSource.system.unixSeconds()
        let milliseconds = TimeSource.system.unixMilliseconds()
        let nanoseconds = TimeSource.system.unixNanoseconds()
        let after = Date().timeIntervalSince1970
        #expect(Double(seconds) >= before.rounded(.down) && Double(seconds) <= after)
        #expect(Double(milliseconds) / 1e3 >= before - 0.001 && Double(milliseconds) / 1e3 <= after)
        #expect(Double(nanoseconds) / 1e9 >= before - 0.001 && Double(nanoseconds) / 1e9 <= after + 0.001)
    }

    @Test("the system's monotonic time never goes back and is the monotonic clock's")
    func systemMonotonicTime() {
        var previous = TimeSource.system.monotonicNanoseconds()
        for _ in 0..<1000 {
            let now = TimeSource.system.monotonicNanoseconds()
            #expect(now >= previous)
            previous = now
        }
        #expect(MonotonicClock.nanoseconds() >= previous)
    }

    @Test("a test's source says what the test says, rounding toward the past")
    func injected() {
        let nanoseconds = Atomic<Int64>(1_800_000_000_999_999_999)
        let source = TimeSource(unixNanoseconds: { nanoseconds.load(ordering: .relaxed) }, monotonicNanoseconds: { 42 })
        #expect(source.unixSeconds() == 1_800_000_000)
        #expect(source.unixMilliseconds() == 1_800_000_000_999)
        #expect(source.monotonicNanoseconds() == 42)
        nanoseconds.store(-1, ordering: .relaxed)
        #expect(source.unixSeconds() == -1)
        #expect(source.unixMilliseconds() == -1)
        #expect(TimeSource.fixed(unixSeconds: 1_000).unixSeconds() == 1_000)
        #expect(TimeSource.fixed(unixSeconds: 1_000).unixMilliseconds() == 1_000_000)
    }
}
