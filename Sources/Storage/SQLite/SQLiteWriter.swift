/// The single writer of one store: writes are group-committed (`GroupCommitter`) on the callers' own threads, each
/// batch in one `BEGIN IMMEDIATE … COMMIT` on the writer's connection, which only the current leader uses.
///
/// A batch either commits whole or fails whole: an error (disk full, lock held beyond the busy timeout, corrupt
/// file) rolls it back and every write in it gets the `StoreError`, so nobody is told "consumed" for a write that
/// is not on disk.
final class SQLiteWriter: Sendable {
    private let committer: GroupCommitter<SQLiteWrite, SQLiteWrite.Outcome>

    init(connection: SQLiteConnection, maxBatchSize: Int) {
        committer = GroupCommitter(maxBatchSize: maxBatchSize, closedError: StoreError("sqlite: the store is closed")) { writes in
            Self.commit(writes, on: connection)
        }
    }

    /// Queues `write` and returns at once; `completion` gets its outcome when its batch has committed, on the thread
    /// that committed it (this one, when no other commit was in progress).
    func submit(_ write: SQLiteWrite, completion: @escaping @Sendable (Result<SQLiteWrite.Outcome, StoreError>) -> Void) {
        committer.submit(write, completion: completion)
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
