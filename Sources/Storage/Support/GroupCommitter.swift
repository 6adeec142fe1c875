import Basics
import Batching
import Dispatch
import Synchronization

/// Group commit that never parks a caller: a write is queued with a completion, and the caller goes on. A caller
/// that finds no commit in progress becomes the leader: it commits everything queued so far as one batch (one
/// SQLite transaction), lets the next caller lead the next batch, and then runs this batch's
/// completions. So a lone write is committed on its caller's thread without a thread switch, and under load a batch
/// holds every write queued while the last one committed: batches grow with the load, and the fixed cost of a
/// commit (file locks, WAL frames, a round trip) is shared by more writes the busier the store is.
///
/// Before this, callers slept until their batch was committed. A batch then held at most one write per verifier
/// thread (two on a 2-core machine), so every write still paid most of a commit, and a sleeping verifier was one fewer
/// core verifying.
///
/// The SQLite store commits this way (its commit is CPU and fsync, one writer at a time, so one batch commits at a
/// time); the Redis store, whose commit is a round trip, commits on threads of its own (`ThreadedCommitter`) so that
/// no caller waits for a reply.
///
/// A batch either commits whole or fails whole (the `commit` function's choice per write): nobody is told
/// "consumed" for a write that is not stored. Completions run on the leader's thread, outside any lock, with the
/// leader's batch; they may submit again.
final class GroupCommitter<Write: Sendable, Outcome: Sendable>: Sendable, HeldWrites {
    typealias Completion = StoreCompletion<Outcome>
    /// Commits a batch in order and answers one outcome per write.
    typealias Commit = @Sendable ([Write]) -> [Result<Outcome, StoreError>]

    private struct Queued: Sendable {
        let write: Write
        let completion: Completion
    }

    private struct Queue: ~Copyable {
        var pending: [Queued] = []
        /// A leader is committing now; writes queued meanwhile join a later batch.
        var committing = false
        var stopped = false
    }

    private let queue = Mutex(Queue())
    private let maxBatchSize: Int
    private let commit: Commit
    /// What a write submitted after `stop()` is told.
    private let closedError: StoreError

    init(maxBatchSize: Int, closedError: StoreError, commit: @escaping Commit) {
        self.maxBatchSize = max(1, maxBatchSize)
        self.closedError = closedError
        self.commit = commit
    }

    /// Queues `write`; `completion` gets its outcome once its batch has committed (or failed). When no commit is in
    /// progress this thread commits the batch (and may answer other callers' writes, joining their answers to
    /// `batch`) before returning, unless `batch` holds writes and has room for this one: then the write waits in
    /// the queue until `batch` flushes or another thread commits.
    func submit(_ write: Write, joining batch: Batch?, completion: @escaping Completion) {
        let holds = batch?.hasRoomForWrite ?? false
        let next: Next = queue.withLock { queue in
            guard !queue.stopped else { return .refuse }
            queue.pending.append(Queued(write: write, completion: completion))
            guard !queue.committing else { return .leave }
            if holds { return .hold }
            queue.committing = true
            return .lead
        }
        switch next {
        case .refuse: completion(.failure(closedError), batch)
        case .lead:
            batch?.commits(self)
            lead(joining: batch)
        case .hold: batch?.holdWrite(in: self, now: MonotonicClock.nanoseconds())
        case .leave: break
        }
    }

    private enum Next {
        case refuse, lead, hold
        /// Another thread is committing; its leader takes this write when its batch is done.
        case leave
    }

    func commitHeld(joining batch: Batch) {
        if takeLead() { lead(joining: batch) }
    }

    /// Queues `write` and waits for its outcome: for callers that have nothing else to do meanwhile (the sweeper,
    /// an administrator's revocation). A caller that leads has its answer without waiting. The write is never held
    /// back: nobody would commit it while its caller waits. Other callers' writes this caller commits are answered
    /// at once (it has no batch to join them to).
    func submitAndWait(_ write: Write) throws(StoreError) -> Outcome {
        let answer = Answer<Outcome>()
        submit(write, joining: nil) { outcome, _ in answer.set(outcome) }
        return try answer.wait().get()
    }

    /// Refuses new writes; those already queued are still committed.
    func stop() {
        queue.withLock { $0.stopped = true }
    }

    /// Commits batches while writes are queued and no other leader is committing; completions join `answers`.
    private func lead(joining answers: Batch?) {
        while true {
            let batch: [Queued] = queue.withLock { queue in
                if queue.pending.count <= maxBatchSize {
                    defer { queue.pending = [] }
                    return queue.pending
                }
                defer { queue.pending.removeFirst(maxBatchSize) }
                return Array(queue.pending.prefix(maxBatchSize))
            }
            // A closure, not `\.write`: a key path in a generic type is instantiated at run time, on every batch.
            let outcomes = commit(batch.map { $0.write })
            // The next batch may commit on another thread while this one answers.
            queue.withLock { $0.committing = false }
            for (index, queued) in batch.enumerated() {
                queued.completion(index < outcomes.count ? outcomes[index] : .failure(StoreError("store: a write got no outcome")), answers)
            }
            // Writes queued while this batch committed, whose callers went on trusting a leader to take them.
            if !takeLead() { return }
        }
    }

    /// Becomes the leader when writes are queued and no batch is committing.
    private func takeLead() -> Bool {
        queue.withLock { queue in
            guard !queue.committing, !queue.pending.isEmpty else { return false }
            queue.committing = true
            return true
        }
    }
}

/// One caller's outcome, for `submitAndWait` (of this and `ThreadedCommitter`): the waiter sleeps on a semaphore
/// until the outcome is set (a `Mutex` alone cannot sleep until another thread acts).
final class Answer<Outcome: Sendable>: Sendable {
    private let outcome = Mutex<Result<Outcome, StoreError>?>(nil)
    private let ready = DispatchSemaphore(value: 0)

    func set(_ outcome: Result<Outcome, StoreError>) {
        self.outcome.withLock { $0 = outcome }
        ready.signal()
    }

    func wait() -> Result<Outcome, StoreError> {
        ready.wait()
        return outcome.withLock { $0 } ?? .failure(StoreError("store: a write got no outcome"))
    }
}
