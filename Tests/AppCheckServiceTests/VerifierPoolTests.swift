@testable import AppCheckService
import Foundation
import HTTP
import Synchronization
import Testing

@Suite("Verifier pool")
struct VerifierPoolTests {
    final class Counter: Sendable {
        let ran = Atomic<Int>(0)
        let expired = Atomic<Int>(0)
    }

    @Test("runs every job it accepts")
    func runsJobs() {
        let pool = VerifierPool(threads: 2, capacity: 100)
        defer { pool.shutdown() }
        let counter = Counter()
        let done = DispatchGroup()
        for _ in 0..<50 {
            done.enter()
            let accepted = pool.submit(.init(deadlineNanos: nil, run: {
                counter.ran.add(1, ordering: .relaxed)
                done.leave()
            }, expire: { done.leave() }))
            #expect(accepted)
        }
        done.wait()
        #expect(counter.ran.load(ordering: .relaxed) == 50)
    }

    @Test("runs a job that may run inline on a pool thread when it is not submitted from an event loop")
    func inlineOnlyOnLoops() {
        let pool = VerifierPool(threads: 1, capacity: 4)
        defer { pool.shutdown() }
        let submitter = pthread_self()
        let counter = Counter()
        let done = DispatchSemaphore(value: 0)
        #expect(pool.submit(.init(deadlineNanos: nil, mayRunInline: true, run: {
            if pthread_equal(pthread_self(), submitter) == 0 { counter.ran.add(1, ordering: .relaxed) }
            done.signal()
        }, expire: { done.signal() })))
        done.wait()
        #expect(counter.ran.load(ordering: .relaxed) == 1)
    }

    @Test("refuses jobs beyond its capacity while its threads are busy, and accepts again once they drain")
    func shedsLoad() {
        let pool = VerifierPool(threads: 1, capacity: 2)
        defer { pool.shutdown() }
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        finished.enter()
        #expect(pool.submit(.init(deadlineNanos: nil, run: { started.signal(); gate.wait(); finished.leave() }, expire: {})))
        started.wait()  // the only thread is now busy
        for _ in 0..<2 {
            finished.enter()
            #expect(pool.submit(.init(deadlineNanos: nil, run: { finished.leave() }, expire: { finished.leave() })))
        }
        #expect(!pool.submit(.init(deadlineNanos: nil, run: {}, expire: {})))
        gate.signal()
        finished.wait()
        finished.enter()
        #expect(pool.submit(.init(deadlineNanos: nil, run: { finished.leave() }, expire: {})))
        finished.wait()
    }

    @Test("expires a job whose deadline passed while it waited, without running it")
    func expiresLateJobs() {
        let pool = VerifierPool(threads: 1, capacity: 4)
        defer { pool.shutdown() }
        let counter = Counter()
        let done = DispatchGroup()
        done.enter()
        #expect(pool.submit(.init(deadlineNanos: MonotonicClock.nanoseconds() - 1, run: {
            counter.ran.add(1, ordering: .relaxed)
            done.leave()
        }, expire: {
            counter.expired.add(1, ordering: .relaxed)
            done.leave()
        })))
        done.wait()
        #expect(counter.ran.load(ordering: .relaxed) == 0)
        #expect(counter.expired.load(ordering: .relaxed) == 1)
    }
}
