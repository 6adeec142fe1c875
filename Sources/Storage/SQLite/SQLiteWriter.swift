/// The single writer of one store, committing on the callers' own threads (leader/follower group commit): a caller
/// that finds no commit in progress becomes the leader and commits everything queued so far in one
/// `BEGIN IMMEDIATE … COMMIT`; callers arriving meanwhile queue and sleep. When its batch is durable the leader
/// answers the batch's callers, hands the lead to the first caller still queued (whose writes then form the next
/// batch) and returns. So a lone caller runs its transaction without any thread switch, and under load the commit
/// cost is still shared by all the callers waiting at that moment.
///
/// Compared with a dedicated writer thread this saves two wake-ups per batch (caller → writer → caller), which on a
/// two-core server cost as much CPU as the transaction itself, and it keeps the verifier thread busy with the
/// store's work instead of parking it while another thread does that work.
///
/// A batch either commits whole or fails whole: an error (disk full, lock held beyond the busy timeout, corrupt
/// file) rolls it back and every caller in it gets the `StoreError`, so nobody is told "consumed" for a write that
/// is not on disk.
final class SQLiteWriter: Sendable {
    /// A write waiting for its batch. Its fields are guarded by the writer's lock.
    private final class Pending: @unchecked Sendable {
        let write: SQLiteWrite
        var outcome: Result<SQLiteWrite.Outcome, StoreError>?
        /// Set when the previous leader hands the lead to this caller.
        var leads = false

        init(_ write: SQLiteWrite) { self.write = write }
    }

    private struct Queue {
        var pending: [Pending] = []
        /// Whether a leader is committing (or about to): new callers queue behind it.
        var committing = false
        var stopping = false
    }

    private let lock = ConditionLock()
    // Guarded by `lock`.
    nonisolated(unsafe) private var queue = Queue()
    /// Used only by the current leader, one at a time.
    private let connection: SQLiteConnection
    private let maxBatchSize: Int

    init(connection: SQLiteConnection, maxBatchSize: Int) {
        self.connection = connection
        self.maxBatchSize = max(1, maxBatchSize)
    }

    /// Queues `write`, waits until its batch has committed (or failed), committing it on this thread if no other
    /// caller is, and returns its outcome.
    func submit(_ write: SQLiteWrite) throws(StoreError) -> SQLiteWrite.Outcome {
        let pending = Pending(write)
        let leads: Bool? = lock.withLock {
            guard !queue.stopping else { return nil }
            queue.pending.append(pending)
            guard queue.committing else {
                queue.committing = true
                return true
            }
            while pending.outcome == nil && !pending.leads { lock.wait() }
            return pending.outcome == nil
        }
        guard let leads else { throw StoreError("sqlite: the store is closed") }
        if leads { lead(until: pending) }
        // Set under the lock before this caller was woken (or by this thread as leader).
        guard let outcome = lock.withLock({ pending.outcome }) else { throw StoreError("sqlite: write not run") }
        return try outcome.get()
    }

    /// Refuses new writes; those already queued are still committed.
    func stop() {
        lock.withLock { queue.stopping = true }
    }

    /// Commits batches, oldest writes first, until `own` is among the committed; then passes the lead on.
    private func lead(until own: Pending) {
        while true {
            let batch: [Pending] = lock.withLock {
                let count = min(maxBatchSize, queue.pending.count)
                defer { queue.pending.removeFirst(count) }
                return Array(queue.pending.prefix(count))
            }
            let outcomes = commit(batch)
            let finished: Bool = lock.withLock {
                for (pending, outcome) in zip(batch, outcomes) { pending.outcome = outcome }
                guard own.outcome != nil else {
                    if batch.count > 1 { lock.broadcast() }
                    return false
                }
                if let next = queue.pending.first { next.leads = true } else { queue.committing = false }
                // Wakes this batch's callers, and the next leader.
                if batch.count > 1 || !queue.pending.isEmpty { lock.broadcast() }
                return true
            }
            if finished { return }
        }
    }

    private func commit(_ batch: [Pending]) -> [Result<SQLiteWrite.Outcome, StoreError>] {
        var outcomes: [Result<SQLiteWrite.Outcome, StoreError>] = []
        outcomes.reserveCapacity(batch.count)
        do throws(StoreError) {
            // IMMEDIATE takes the write lock up front, waiting up to the busy timeout for another process.
            try connection.run("BEGIN IMMEDIATE", [])
            for pending in batch { outcomes.append(.success(try pending.write.perform(on: connection))) }
            try connection.run("COMMIT", [])
            return outcomes
        } catch {
            if connection.inTransaction { try? connection.execute("ROLLBACK") }
            return Array(repeating: .failure(error), count: batch.count)
        }
    }
}
