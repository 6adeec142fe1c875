import Batching
import Synchronization

/// The single writer of one store: writes are group-committed (`GroupCommitter`) on the callers' own threads, each
/// batch in one `BEGIN IMMEDIATE … COMMIT` on the writer's connection, which only the current leader uses.
///
/// A batch either commits whole or fails whole: an error (disk full, lock held beyond the busy timeout, corrupt
/// file) rolls it back and every write in it gets the `StoreError`, so nobody is told "consumed" for a write that
/// is not on disk.
///
/// The writer also takes the last step of a log cycle that the checkpointer prepared (`endLogCycle()`).
final class SQLiteWriter: Sendable {
    private let committer: GroupCommitter<SQLiteWrite, SQLiteWrite.Outcome>
    private let logCycle: LogCycle

    init(connection: SQLiteConnection, maxBatchSize: Int) {
        let logCycle = LogCycle()
        self.logCycle = logCycle
        committer = GroupCommitter(maxBatchSize: maxBatchSize, closedError: StoreError("sqlite: the store is closed")) { writes in
            logCycle.endIfDue(on: connection)
            return Self.commit(writes, on: connection)
        }
    }

    /// Asks the next batch's leader to copy what is left of the log into the database before it commits, so that
    /// its commit starts the log over. Only the writer can end a cycle while writes go on: a checkpoint completes
    /// only when no frame is written meanwhile, and only the writer's own commits are sure not to be.
    func endLogCycle() {
        logCycle.due.store(true, ordering: .releasing)
    }

    /// Log cycles the writer ended so far.
    var logCyclesEnded: Int { logCycle.ended.load(ordering: .relaxed) }

    /// Queues `write` and returns at once; `completion` gets its outcome when its batch has committed, on the thread
    /// that committed it (this one, when no other commit was in progress).
    func submit(_ write: SQLiteWrite, joining batch: Batch?, completion: @escaping StoreCompletion<SQLiteWrite.Outcome>) {
        committer.submit(write, joining: batch, completion: completion)
    }

    /// Queues `write` and waits until its batch has committed (or failed).
    func submit(_ write: SQLiteWrite) throws(StoreError) -> SQLiteWrite.Outcome {
        try committer.submitAndWait(write)
    }

    /// Refuses new writes; those already queued are still committed.
    func stop() {
        committer.stop()
    }

    private static func commit(_ writes: [SQLiteWrite], on connection: SQLiteConnection) -> [Result<SQLiteWrite.Outcome, StoreError>] {
        var outcomes: [Result<SQLiteWrite.Outcome, StoreError>] = []
        outcomes.reserveCapacity(writes.count)
        do throws(StoreError) {
            // IMMEDIATE takes the write lock up front, waiting up to the busy timeout for another process.
            try connection.run("BEGIN IMMEDIATE", [])
            for write in writes { outcomes.append(.success(try write.perform(on: connection))) }
            try connection.run("COMMIT", [])
            return outcomes
        } catch {
            if connection.inTransaction { try? connection.execute("ROLLBACK") }
            return Array(repeating: .failure(error), count: writes.count)
        }
    }
}

/// A log cycle's last step, asked for by the checkpointer and taken by the leader of the next batch.
private final class LogCycle: Sendable {
    let due = Atomic<Bool>(false)
    let ended = Atomic<Int>(0)

    /// When a cycle's end is due: a passive checkpoint on the writer's connection, before the batch's transaction.
    /// The checkpointer has already copied and synced all but the last few frames, so this copies those, syncs
    /// them and the database, and leaves the log wholly copied: the batch's commit then writes from the log's
    /// start (syncing only its header). Busy (another process checkpointing) or failed: the cycle goes on, and the
    /// checkpointer asks again.
    func endIfDue(on connection: SQLiteConnection) {
        guard due.load(ordering: .acquiring), due.exchange(false, ordering: .acquiringAndReleasing) else { return }
        if connection.passiveCheckpoint()?.copiedAll == true { ended.add(1, ordering: .relaxed) }
    }
}
