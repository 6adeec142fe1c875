@testable import VerifierPool
import Basics
import Foundation
import HTTP
import Observability
import Storage
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
            let accepted = pool.submit(.init(deadlineNanos: nil, run: { _ in
                counter.ran.add(1, ordering: .relaxed)
                done.leave()
            }, expire: { _ in done.leave() }), inlineOn: nil)
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
        #expect(pool.submit(.init(deadlineNanos: nil, mayRunInline: true, run: { _ in
            if pthread_equal(pthread_self(), submitter) == 0 { counter.ran.add(1, ordering: .relaxed) }
            done.signal()
        }, expire: { _ in done.signal() }), inlineOn: nil))
        done.wait()
        #expect(counter.ran.load(ordering: .relaxed) == 1)
    }

    @Test("refuses jobs beyond its capacity while its threads are busy, and accepts again once they drain")
    func shedsLoad() {
        let pool = VerifierPool(threads: 1, capacity: 2)
        defer { pool.shutdown() }
        let finished = DispatchGroup()
        whileTheOnlyThreadIsBusy(pool) {
            for _ in 0..<2 {
                finished.enter()
                #expect(pool.submit(.init(deadlineNanos: nil, run: { _ in finished.leave() }, expire: { _ in finished.leave() }), inlineOn: nil))
            }
            #expect(!pool.submit(.init(deadlineNanos: nil, run: { _ in }, expire: { _ in }), inlineOn: nil))
        }
        finished.wait()
        finished.enter()
        #expect(pool.submit(.init(deadlineNanos: nil, run: { _ in finished.leave() }, expire: { _ in }), inlineOn: nil))
        finished.wait()
    }

    @Test("expires a job whose deadline passed while it waited, without running it")
    func expiresLateJobs() {
        let pool = VerifierPool(threads: 1, capacity: 4)
        defer { pool.shutdown() }
        let counter = Counter()
        let done = DispatchGroup()
        done.enter()
        #expect(pool.submit(.init(deadlineNanos: MonotonicClock.nanoseconds() - 1, run: { _ in
            counter.ran.add(1, ordering: .relaxed)
            done.leave()
        }, expire: { _ in
            counter.expired.add(1, ordering: .relaxed)
            done.leave()
        }), inlineOn: nil))
        done.wait()
        #expect(counter.ran.load(ordering: .relaxed) == 0)
        #expect(counter.expired.load(ordering: .relaxed) == 1)
    }

    /// What the pool's jobs and the store's completions did, in order.
    final class Events: Sendable {
        private let events = Mutex<[String]>([])
        func append(_ event: String) { events.withLock { $0.append(event) } }
        var all: [String] { events.withLock { $0 } }
    }

    /// Runs `body` while the only thread of `pool` is held at a gate: the jobs `body` submits queue up behind it,
    /// and run in order once `body` returns (so a job that finished tells that the gate job did too).
    private func whileTheOnlyThreadIsBusy(_ pool: VerifierPool, _ body: () throws -> Void) rethrows {
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        #expect(pool.submit(.init(deadlineNanos: nil, run: { _ in started.signal(); gate.wait() }, expire: { _ in }), inlineOn: nil))
        started.wait()
        defer { gate.signal() }
        try body()
    }

    /// Runs `body` with a one-thread pool held busy (`whileTheOnlyThreadIsBusy`), and a SQLite store in a fresh
    /// folder to serve the jobs it queues.
    private func withQueuedJobs(_ body: (VerifierPool, SQLiteStateStore) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try SQLiteStateStore(SQLiteConfiguration(path: folder.appendingPathComponent("state.db").path))
        let pool = VerifierPool(threads: 1, capacity: 64)
        defer { pool.shutdown() }
        try whileTheOnlyThreadIsBusy(pool) { try body(pool, store) }
    }

    /// A job that hands one write to `store` and records when it is answered.
    private func writeJob(_ name: String, _ store: SQLiteStateStore, _ events: Events, _ done: DispatchGroup) -> VerifierPool.Job {
        done.enter()
        return .init(deadlineNanos: nil, run: { batch in
            store.consumeToken(name, expiresAt: Int64.max, joining: batch) { outcome, _ in
                events.append("\(name) answered \((try? outcome.get()) == true)")
                done.leave()
            }
        }, expire: { _ in done.leave() })
    }

    /// A job that records that it started.
    private func markJob(_ name: String, _ events: Events, _ done: DispatchGroup) -> VerifierPool.Job {
        done.enter()
        return .init(deadlineNanos: nil, run: { _ in events.append("\(name) started"); done.leave() }, expire: { _ in done.leave() })
    }

    @Test("with a shallow backlog, a job's state-store write is committed and answered before the thread's next job")
    func shallowBacklogHoldsNothing() throws {
        let events = Events()
        let done = DispatchGroup()
        try withQueuedJobs { pool, store in
            #expect(pool.submit(writeJob("first", store, events, done), inlineOn: nil))
            #expect(pool.submit(markJob("second", events, done), inlineOn: nil))
        }
        done.wait()
        #expect(events.all == ["first answered true", "second started"])
    }

    @Test("behind a deep backlog, writes are held for a batch while the thread runs the next jobs, and all are answered")
    func deepBacklogBatches() throws {
        let events = Events()
        let done = DispatchGroup()
        let behind = VerifierPool.backlogPerThreadForHolds + 2
        try withQueuedJobs { pool, store in
            #expect(pool.submit(writeJob("first", store, events, done), inlineOn: nil))
            for index in 1...behind { #expect(pool.submit(markJob("job \(index)", events, done), inlineOn: nil)) }
        }
        done.wait()
        let all = events.all
        #expect(all.count == behind + 1)
        #expect(all.first == "job 1 started")
        #expect(all.contains("first answered true"))
    }

    @Test("times how long each queued job waited for a thread")
    func queueWait() {
        let pool = VerifierPool(threads: 1, capacity: 8)
        defer { pool.shutdown() }
        let done = DispatchGroup()
        whileTheOnlyThreadIsBusy(pool) {
            for _ in 0..<2 {
                done.enter()
                #expect(pool.submit(.init(deadlineNanos: nil, run: { _ in done.leave() }, expire: { _ in done.leave() }), inlineOn: nil))
            }
            usleep(30_000)  // the two wait behind the first for at least 30 ms
        }
        done.wait()
        var text = ""
        RequestStageMetrics([("verifier_queue", pool.queueWait)]).render(into: &text)
        #expect(pool.queueWait.count == 3)
        #expect(text.contains("attestd_request_stage_seconds_bucket{stage=\"verifier_queue\",le=\"0.025\"} 1\n"), "\(text)")
    }

    @Test("holds back answers and writes only with at least four jobs per thread queued")
    func holdRule() {
        #expect(!VerifierPool.holdsBack(queued: 0, threads: 2))
        #expect(!VerifierPool.holdsBack(queued: 7, threads: 2))
        #expect(VerifierPool.holdsBack(queued: 8, threads: 2))
        #expect(!VerifierPool.holdsBack(queued: 3, threads: 1))
        #expect(VerifierPool.holdsBack(queued: 4, threads: 1))
    }
}
