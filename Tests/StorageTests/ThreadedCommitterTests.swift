import Batching
import Foundation
import Glibc
@testable import Storage
import Synchronization
import Testing

@Suite("Commits on the store's own threads")
struct ThreadedCommitterTests {
    /// Each batch the commit function saw, in order, with the name of the thread that committed it.
    final class Batches: Sendable {
        let seen = Mutex<[(thread: String, writes: [Int])]>([])
        var all: [[Int]] { seen.withLock { $0.map { $0.writes } } }
        var threads: Set<String> { seen.withLock { Set($0.map { $0.thread }) } }
    }

    /// The calling thread's name, as the kernel knows it.
    static func threadName() -> String {
        ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A committer whose commit takes a millisecond (so that writes queue meanwhile) and answers each write doubled;
    /// a write's lane is the write modulo 2 when `lanes` is 2.
    static func doubling(_ batches: Batches, threads: Int = 2, maxQueueWait: Duration = .seconds(60)) -> ThreadedCommitter<Int, Int> {
        ThreadedCommitter(threads: threads, name: "test-io", maxBatchSize: 1_000, maxQueueWait: maxQueueWait,
                          closedError: StoreError("closed"), lane: { $0 }) { writes in
            batches.seen.withLock { $0.append((threadName(), writes)) }
            Thread.sleep(forTimeInterval: 0.001)
            return writes.map { .success($0 * 2) }
        }
    }

    @Test("answers every handed-over write of 8 threads exactly once, on its own named threads, never the submitter's")
    func handedOver() {
        let batches = Batches()
        let committer = Self.doubling(batches)
        let answers = Mutex<[Int: [Int]]>([:])
        let onSubmitter = Atomic<Int>(0)
        let done = DispatchSemaphore(value: 0)
        let submitters = onThreads(8) { thread in
            let me = pthread_self()
            for index in 0..<200 {
                let write = thread * 1_000 + index
                committer.submit(write, joining: nil) { outcome, _ in
                    if pthread_equal(pthread_self(), me) != 0 { onSubmitter.add(1, ordering: .relaxed) }
                    answers.withLock { $0[write, default: []].append((try? outcome.get()) ?? -1) }
                    done.signal()
                }
            }
            return Self.threadName()
        }
        for _ in 0..<1_600 { done.wait() }
        let answered = answers.withLock { $0 }
        #expect(answered.count == 1_600)
        #expect(answered.allSatisfy { write, outcomes in outcomes == [write * 2] })
        #expect(onSubmitter.load(ordering: .relaxed) == 0)
        #expect(batches.threads == ["test-io-0", "test-io-1"], "\(batches.threads), submitters \(submitters)")
        #expect(batches.all.count < 1_600 / 2, "batches: \(batches.all.count)")
        committer.stop()
    }

    @Test("commits the writes of one lane in the order they were queued, one batch after the other")
    func laneOrder() {
        let batches = Batches()
        let committer = Self.doubling(batches)
        let done = DispatchSemaphore(value: 0)
        // Even writes take one lane, odd ones the other.
        for write in 0..<2_000 { committer.submit(write, joining: nil) { _, _ in done.signal() } }
        for _ in 0..<2_000 { done.wait() }
        let byThread = batches.seen.withLock { seen in Dictionary(grouping: seen) { $0.thread }.mapValues { $0.flatMap { $0.writes } } }
        #expect(byThread.count == 2)
        for (_, writes) in byThread {
            #expect(writes == writes.sorted())
            #expect(Set(writes.map { $0 % 2 }).count == 1)
        }
        committer.stop()
    }

    @Test("writes joining a batch wake no committer until it flushes, then they go as one batch")
    func heldWrites() throws {
        let batches = Batches()
        let committer = Self.doubling(batches, threads: 1)
        let done = DispatchSemaphore(value: 0)
        // An awake committer takes whatever is queued, held or not: let it commit one write and fall asleep first.
        #expect(try committer.submitAndWait(0) == 0)
        Thread.sleep(forTimeInterval: 0.05)
        let outcome = onThreads(1) { _ in
            let batch = Batch()
            for write in 1...5 { committer.submit(write, joining: batch) { _, _ in done.signal() } }
            // Nothing wakes the committer: give it time to show that it stays asleep.
            Thread.sleep(forTimeInterval: 0.05)
            let beforeFlush = batches.all
            batch.flush()
            for _ in 1...5 { done.wait() }
            return (beforeFlush, batches.all)
        }[0]
        #expect(outcome.0 == [[0]])
        #expect(outcome.1 == [[0], [1, 2, 3, 4, 5]])
        committer.stop()
    }

    @Test("a completion that waits for another write has it committed on its own thread instead of deadlocking")
    func waitInCompletion() {
        let committer = ThreadedCommitter<Int, Int>(
            threads: 1, name: "test-io", maxBatchSize: 10, maxQueueWait: .seconds(60), closedError: StoreError("closed"),
            lane: { $0 }) { writes in writes.map { .success($0 + 1) } }
        let nested = Mutex<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        committer.submit(1, joining: nil) { _, _ in
            nested.withLock { $0 = try? committer.submitAndWait(10) }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(nested.withLock { $0 } == 11)
        committer.stop()
    }

    @Test("stop answers every write already queued, refuses later ones at once, and a lone waiter gets its answer")
    func stop() throws {
        let batches = Batches()
        let committer = Self.doubling(batches)
        let answered = Mutex<[Int: Int]>([:])
        for write in 0..<500 {
            committer.submit(write, joining: nil) { _, _ in answered.withLock { $0[write, default: 0] += 1 } }
        }
        #expect(try committer.submitAndWait(7) == 14)
        committer.stop()
        // stop() joined the threads: everything queued before it has been answered, exactly once.
        #expect(answered.withLock { $0.count == 500 && $0.values.allSatisfy { $0 == 1 } })
        let refused = Mutex<String?>(nil)
        committer.submit(1, joining: nil) { outcome, _ in
            if case .failure(let error) = outcome { refused.withLock { $0 = error.description } }
        }
        #expect(refused.withLock { $0 } == "closed")
        #expect(throws: StoreError.self) { try committer.submitAndWait(2) }
    }

    @Test("fails a write that waited in the queue longer than allowed without committing it")
    func queueWait() {
        let committed = Mutex<[Int]>([])
        let committer = ThreadedCommitter<Int, Int>(
            threads: 1, name: "test-io", maxBatchSize: 1, maxQueueWait: .milliseconds(50), closedError: StoreError("closed"),
            lane: { $0 }) { writes in
            committed.withLock { $0 += writes }
            // The first write holds the only thread longer than the others may wait.
            if writes == [0] { Thread.sleep(forTimeInterval: 0.2) }
            return writes.map { .success($0) }
        }
        let outcomes = Mutex<[Int: Result<Int, StoreError>]>([:])
        let done = DispatchSemaphore(value: 0)
        for write in 0..<3 {
            committer.submit(write, joining: nil) { outcome, _ in
                outcomes.withLock { $0[write] = outcome }
                done.signal()
            }
        }
        for _ in 0..<3 { done.wait() }
        #expect(committed.withLock { $0 } == [0])
        #expect((try? outcomes.withLock { $0[0] }?.get()) == 0)
        let late = outcomes.withLock { [$0[1], $0[2]] }
        for outcome in late {
            let failed: Bool
            switch outcome {
            case .failure?: failed = true
            default: failed = false
            }
            #expect(failed, "\(String(describing: outcome))")
        }
        committer.stop()
    }

    @Test("hands its completions the committer thread's batch, which holds wake-ups only and is flushed after each batch")
    func completionsJoinTheCommittersBatch() {
        // Each event: "c<write>" for a completion, "w" for a held wake-up written, in the order they ran.
        let events = Mutex<[String]>([])
        let wakeThreads = Mutex<Set<String>>([])
        let loop = RecordingWake { wakeThreads.withLock { _ = $0.insert(Self.threadName()) }; events.withLock { $0.append("w") } }
        let holdsWrites = Mutex<[Bool]>([])
        let done = DispatchSemaphore(value: 0)
        let committer = ThreadedCommitter<Int, Int>(
            threads: 1, name: "hook-io", maxBatchSize: 1_000, maxQueueWait: .seconds(60), closedError: StoreError("closed"),
            lane: { $0 }) { writes in writes.map { .success($0) } }
        for write in [7, 8] {
            committer.submit(write, joining: nil) { _, batch in
                events.withLock { $0.append("c\(write)") }
                holdsWrites.withLock { $0.append(batch?.holdsWrites ?? true) }
                batch?.holdWake(of: loop)
                done.signal()
            }
            done.wait()
            // The flush follows the completion on the committer thread.
            for _ in 0..<5_000 where events.withLock({ $0.last }) != "w" { Thread.sleep(forTimeInterval: 0.001) }
        }
        committer.stop()
        #expect(events.withLock { $0 } == ["c7", "w", "c8", "w"])
        #expect(wakeThreads.withLock { $0 } == ["hook-io-0"])
        #expect(holdsWrites.withLock { $0 } == [false, false])
    }
}

/// Stands for an event loop: records each wake-up a batch writes.
private final class RecordingWake: WakeTarget, Sendable {
    let woken: @Sendable () -> Void
    init(_ woken: @escaping @Sendable () -> Void) { self.woken = woken }
    func wake() { woken() }
}
