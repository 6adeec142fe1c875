import Dispatch

/// The single writer of one store: callers queue writes and block; its thread commits everything queued so far in
/// one `BEGIN IMMEDIATE … COMMIT` (group commit) and answers each caller once that batch is durable. While one batch
/// commits, the next one gathers, so the commit cost is shared by all the callers waiting at that moment.
///
/// A batch either commits whole or fails whole: an error (disk full, lock held beyond the busy timeout, corrupt
/// file) rolls it back and every caller in it gets the `StoreError`, so nobody is told "consumed" for a write that
/// is not on disk.
final class SQLiteWriter: Sendable {
    /// A write waiting for its batch.
    private final class Pending: @unchecked Sendable {
        let write: SQLiteWrite
        // Written by the writer thread before `done` is signalled, read by the caller after: the semaphore orders them.
        nonisolated(unsafe) var outcome: Result<SQLiteWrite.Outcome, StoreError> = .failure(StoreError("sqlite: not run"))
        let done = DispatchSemaphore(value: 0)

        init(_ write: SQLiteWrite) { self.write = write }
    }

    private struct Queue {
        var pending: [Pending] = []
        var stopping = false
    }

    private let lock = ConditionLock()
    // Guarded by `lock`.
    nonisolated(unsafe) private var queue = Queue()
    private let connection: SQLiteConnection
    private let maxBatchSize: Int

    init(connection: SQLiteConnection, maxBatchSize: Int) {
        self.connection = connection
        self.maxBatchSize = max(1, maxBatchSize)
    }

    /// Queues `write`, waits until its batch has committed (or failed) and returns its outcome.
    func submit(_ write: SQLiteWrite) throws(StoreError) -> SQLiteWrite.Outcome {
        let pending = Pending(write)
        let accepted = lock.withLock {
            guard !queue.stopping else { return false }
            queue.pending.append(pending)
            if queue.pending.count == 1 { lock.signal() }
            return true
        }
        guard accepted else { throw StoreError("sqlite: the store is closed") }
        pending.done.wait()
        return try pending.outcome.get()
    }

    /// The writer thread's loop: returns once `stop()` was called and the queue is drained.
    func run() {
        while let batch = nextBatch() {
            commit(batch)
        }
    }

    /// Refuses new writes; the thread finishes those already queued, then `run()` returns.
    func stop() {
        lock.withLock {
            queue.stopping = true
            lock.signal()
        }
    }

    private func nextBatch() -> [Pending]? {
        lock.withLock {
            while queue.pending.isEmpty && !queue.stopping { lock.wait() }
            guard !queue.pending.isEmpty else { return nil }
            let count = min(maxBatchSize, queue.pending.count)
            let batch = Array(queue.pending.prefix(count))
            queue.pending.removeFirst(count)
            return batch
        }
    }

    private func commit(_ batch: [Pending]) {
        var outcomes: [SQLiteWrite.Outcome] = []
        outcomes.reserveCapacity(batch.count)
        do throws(StoreError) {
            // IMMEDIATE takes the write lock up front, waiting up to the busy timeout for another process.
            try connection.execute("BEGIN IMMEDIATE")
            for pending in batch { outcomes.append(try pending.write.perform(on: connection)) }
            try connection.execute("COMMIT")
        } catch {
            if connection.inTransaction { try? connection.execute("ROLLBACK") }
            for pending in batch {
                pending.outcome = .failure(error)
                pending.done.signal()
            }
            return
        }
        for (pending, outcome) in zip(batch, outcomes) {
            pending.outcome = .success(outcome)
            pending.done.signal()
        }
    }
}
