import Batching
import Foundation
@testable import Storage
import Synchronization
import Testing

@Suite("Group commit")
struct GroupCommitterTests {
    /// Each batch the commit function saw, in order.
    final class Batches: Sendable {
        let seen = Mutex<[[Int]]>([])
        var all: [[Int]] { seen.withLock { $0 } }
    }

    /// A committer whose commit takes a millisecond (so that writes queue meanwhile) and answers each write doubled.
    static func doubling(_ batches: Batches, maxBatchSize: Int = 1_000) -> GroupCommitter<Int, Int> {
        GroupCommitter(maxBatchSize: maxBatchSize, closedError: StoreError("closed")) { writes in
            batches.seen.withLock { $0.append(writes) }
            Thread.sleep(forTimeInterval: 0.001)
            return writes.map { .success($0 * 2) }
        }
    }

    @Test("answers every write of 16 threads exactly once with its own outcome, in far fewer batches than writes")
    func concurrentWrites() {
        let batches = Batches()
        let committer = Self.doubling(batches)
        let answers = onThreads(16) { thread in
            (0..<25).map { index in try? committer.submitAndWait(thread * 1_000 + index) }
        }
        for (thread, answered) in answers.enumerated() {
            #expect(answered == (0..<25).map { (thread * 1_000 + $0) * 2 })
        }
        let written = batches.all.flatMap { $0 }
        #expect(written.count == 400)
        #expect(Set(written).count == 400)
        #expect(batches.all.count < 200, "batches: \(batches.all.count)")
    }

    @Test("writes joining a batch are committed in one batch when it flushes, and at once past the limit")
    func heldWrites() {
        let batches = Batches()
        let committer = Self.doubling(batches)
        let outcome = onThreads(1) { _ in
            let batch = Batch()
            let answered = Mutex<[Int]>([])
            for write in 1...3 {
                committer.submit(write, joining: batch) { answer, _ in answered.withLock { $0.append((try? answer.get()) ?? -1) } }
            }
            let beforeFlush = (batches.all, answered.withLock { $0 })
            batch.flush()
            let afterFlush = (batches.all, answered.withLock { $0 })
            // One more than may be held: the last of them commits them all at once.
            for write in 1...(Batch.maxWritesHeld + 1) { committer.submit(100 + write, joining: batch) { _, _ in } }
            let pastLimit = batches.all.count
            // A caller that waits is never held back, even behind writes held in a batch.
            committer.submit(500, joining: batch) { _, _ in }
            let waited = try? committer.submitAndWait(501)
            return (beforeFlush, afterFlush, pastLimit, waited, batches.all.last)
        }[0]
        #expect(outcome.0.0.isEmpty && outcome.0.1.isEmpty)
        #expect(outcome.1.0 == [[1, 2, 3]])
        #expect(outcome.1.1 == [2, 4, 6])
        #expect(outcome.2 == 2)
        #expect(outcome.3 == 1_002)
        #expect(outcome.4 == [500, 501])
    }

    @Test("the leader runs every completion of its batch with its own batch, so their answers join it")
    func completionsJoinTheLeadersBatch() {
        let batches = Batches()
        let committer = Self.doubling(batches)
        let joined = onThreads(1) { _ in
            let batch = Batch()
            let mine = ObjectIdentifier(batch)
            let seen = Mutex<[Bool]>([])
            for write in 1...2 {
                committer.submit(write, joining: batch) { _, given in seen.withLock { $0.append(given.map(ObjectIdentifier.init) == mine) } }
            }
            batch.flush()
            committer.submit(3, joining: nil) { _, given in seen.withLock { $0.append(given == nil) } }
            return seen.withLock { $0 }
        }[0]
        #expect(joined == [true, true, true])
    }

    @Test("a failed batch fails every write in it, and a stopped committer refuses new writes")
    func failures() {
        let committer = GroupCommitter<Int, Int>(maxBatchSize: 10, closedError: StoreError("closed")) { writes in
            Array(repeating: .failure(StoreError("disk full")), count: writes.count)
        }
        #expect(throws: StoreError.self) { try committer.submitAndWait(1) }
        committer.stop()
        let refused = Mutex<String?>(nil)
        committer.submit(2, joining: nil) { answer, _ in
            if case .failure(let error) = answer { refused.withLock { $0 = error.description } }
        }
        #expect(refused.withLock { $0 } == "closed")
    }

    @Test("commits one batch at a time, however many threads submit (one SQLite writer)")
    func concurrentBatches() {
        // Atomics rather than a Mutex: ThreadSanitizer cannot see a contended Mutex's hand-over on Linux
        // (scripts/sanitizers/tsan.supp), and this test contends it on purpose.
        let inFlight = BatchCounter()
        let committer = GroupCommitter<Int, Int>(maxBatchSize: 4, closedError: StoreError("closed")) { writes in
            inFlight.enter()
            Thread.sleep(forTimeInterval: 0.002)
            inFlight.leave()
            return writes.map { .success($0) }
        }
        let answers = onThreads(12) { thread in (0..<10).map { index in try? committer.submitAndWait(thread * 100 + index) } }
        #expect(answers.enumerated().allSatisfy { thread, answered in answered == (0..<10).map { thread * 100 + $0 } })
        let most = inFlight.most.load(ordering: .sequentiallyConsistent)
        #expect(most == 1, "\(most) batches at once")
    }
}

/// Batches committing now, and the most seen at once.
private final class BatchCounter: Sendable {
    let now = Atomic<Int>(0)
    let most = Atomic<Int>(0)

    func enter() {
        let current = now.add(1, ordering: .sequentiallyConsistent).newValue
        var seen = most.load(ordering: .sequentiallyConsistent)
        while current > seen {
            let (exchanged, original) = most.compareExchange(expected: seen, desired: current, ordering: .sequentiallyConsistent)
            if exchanged { break }
            seen = original
        }
    }

    func leave() {
        now.subtract(1, ordering: .sequentiallyConsistent)
    }
}
