import CSQLite
import Foundation
@testable import Storage
import Synchronization
import Testing

@Suite("SQLite log cycles under steady writes")
struct SQLiteLogCycleTests {
    let directory: TemporaryDirectory
    var path: String { directory.file("state.sqlite") }
    let expiresAt = Int64(Date().timeIntervalSince1970) + 300

    init() throws { directory = try TemporaryDirectory("log-cycle") }

    @Test("while writes go on, a round past the length limit prepares the end of the log's cycle and the writer's next batch ends it: the log starts over")
    func writerEndsCycleUnderSteadyWrites() throws {
        let store = try SQLiteStateStore(SQLiteConfiguration(path: path, checkpointIntervalSeconds: 0, logRestartFrames: 64))
        defer { store.close() }
        // Short of the limit a round asks nothing of the writer.
        try fill(store, 0..<20)
        store.checkpointer.round()
        try fill(store, 20..<21)
        #expect(store.writer.logCyclesEnded == 0)

        // A thread commits one challenge after another, as steady load does, until the writer has ended a cycle.
        let writes = Counter(), finished = DispatchSemaphore(value: 0)
        let expiresAt = self.expiresAt
        Thread.detachNewThread {
            for index in 1_000..<21_000 {
                _ = try? store.consumeChallenge(withUnsafeBytes(of: index) { Array($0) }, expiresAt: expiresAt)
                writes.value.add(1, ordering: .relaxed)
                if store.writer.logCyclesEnded > 0 { break }
            }
            finished.signal()
        }
        // Each commit adds at least a frame: past 100 of them the log is over the limit of 64.
        for _ in 0..<500 where writes.value.load(ordering: .relaxed) < 100 { Thread.sleep(forTimeInterval: 0.01) }
        // Rounds as the checkpointer's thread runs them: one that finds the checkpoint lock taken leaves the cycle
        // to the next.
        for _ in 0..<200 where store.writer.logCyclesEnded == 0 {
            store.checkpointer.round()
            Thread.sleep(forTimeInterval: 0.001)
        }
        finished.wait()
        #expect(store.writer.logCyclesEnded == 1)
        #expect(writes.value.load(ordering: .relaxed) < 20_000, "the writes ran out before the writer ended a cycle")
        // The log started over at the batch after the writer's last step: it holds a commit or two.
        let after = try #require(logFrames())
        #expect(after < 16, "the log is \(after) frames")
    }

    @Test("a reader on an older snapshot keeps a round from asking the writer for a cycle's end it could not finish; once the reader is done, the next round does")
    func readerPostponesCycleEnd() throws {
        let store = try SQLiteStateStore(SQLiteConfiguration(path: path, checkpointIntervalSeconds: 0, logRestartFrames: 64))
        defer { store.close() }
        let reader = try readerOnSnapshot(after: store, writes: 10)
        // More frames than the writer's last step may take (256) after the reader's snapshot.
        try fill(store, 10..<600)
        store.checkpointer.round()
        #expect(reader.execute("COMMIT") == SQLITE_OK)
        try fill(store, 600..<601)
        #expect(store.writer.logCyclesEnded == 0)

        store.checkpointer.round()
        try fill(store, 601..<602)
        #expect(store.writer.logCyclesEnded == 1)
        let after = try #require(logFrames())
        #expect(after < 8, "the log is \(after) frames after the writer's commit")
        #expect(RawSQLite(path).integer("SELECT count(*) FROM used_challenges") == 602)
    }

    @Test("the writer counts a cycle as ended only when its last step copied the whole log: a reader on an older snapshot stops the copy short")
    func writerCountsOnlyWholeCopies() throws {
        let store = try SQLiteStateStore(SQLiteConfiguration(path: path, checkpointIntervalSeconds: 0, logRestartFrames: 64))
        defer { store.close() }
        let reader = try readerOnSnapshot(after: store, writes: 10)
        try fill(store, 10..<40)
        store.writer.endLogCycle()
        try fill(store, 40..<41)
        #expect(store.writer.logCyclesEnded == 0)

        #expect(reader.execute("COMMIT") == SQLITE_OK)
        store.writer.endLogCycle()
        try fill(store, 41..<42)
        #expect(store.writer.logCyclesEnded == 1)
        let after = try #require(logFrames())
        #expect(after < 8, "the log is \(after) frames after the writer's commit")
    }

    @Test("preparing a cycle's end syncs the database without dropping the process's locks on it: another process still cannot take it out of WAL mode")
    func preparationKeepsDatabaseLocks() throws {
        let store = try SQLiteStateStore(SQLiteConfiguration(path: path, checkpointIntervalSeconds: 0, logRestartFrames: 64))
        defer { store.close() }
        try fill(store, 0..<100)
        #expect(try leaveWALModeFromAnotherProcess().contains("database is locked"))
        store.checkpointer.round()
        try fill(store, 100..<101)
        #expect(store.writer.logCyclesEnded == 1, "the round prepared no cycle's end, so it synced nothing")
        let answer = try leaveWALModeFromAnotherProcess()
        #expect(answer.contains("database is locked"), "another process got: \(answer)")
        #expect(RawSQLite(path).integer("SELECT count(*) FROM used_challenges") == 101)
    }

    /// A connection of its own in a read transaction that has seen the store's first `writes` challenges: until it
    /// commits, no checkpoint copies past its snapshot.
    private func readerOnSnapshot(after store: SQLiteStateStore, writes: Int) throws -> RawSQLite {
        try fill(store, 0..<writes)
        let reader = RawSQLite(path)
        #expect(reader.execute("BEGIN") == SQLITE_OK)
        #expect(reader.integer("SELECT count(*) FROM used_challenges") == Int64(writes))
        return reader
    }

    private func fill(_ store: SQLiteStateStore, _ range: Range<Int>) throws {
        for index in range { _ = try store.consumeChallenge(withUnsafeBytes(of: index) { Array($0) }, expiresAt: expiresAt) }
    }

    /// What another process (Python's sqlite3, on the same libsqlite3) gets when it tries to switch the database
    /// to a rollback journal: it needs an exclusive lock, which the store's connections' SHARED lock refuses.
    private func leaveWALModeFromAnotherProcess() throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", """
            import sqlite3, sys
            try:
                print(sqlite3.connect(sys.argv[1], timeout=0.1).execute("PRAGMA journal_mode=DELETE").fetchone()[0])
            except sqlite3.OperationalError as error:
                print(error)
            """, path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }

    /// The log's length in frames, from a passive checkpoint of its own (which copies what it can, and starts
    /// nothing over).
    private func logFrames() -> Int64? {
        RawSQLite(path).integer("PRAGMA wal_checkpoint(PASSIVE)", column: 1)
    }
}

/// Writes counted by the test's writer thread.
private final class Counter: Sendable {
    let value = Atomic<Int>(0)
}
