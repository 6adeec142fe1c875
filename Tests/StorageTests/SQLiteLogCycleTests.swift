import CSQLite
import Foundation
@testable import Storage
import Testing

@Suite("SQLite log cycles under steady writes")
struct SQLiteLogCycleTests {
    let directory: TemporaryDirectory
    var path: String { directory.file("state.sqlite") }
    let expiresAt = Int64(Date().timeIntervalSince1970) + 300

    init() throws { directory = try TemporaryDirectory("log-cycle") }

    @Test("past its length limit the checkpointer prepares the log's end and the writer's next commit starts it over; short of it, the log goes on")
    func writerEndsPreparedCycle() throws {
        let store = try SQLiteStateStore(SQLiteConfiguration(path: path, checkpointIntervalSeconds: 0, logRestartFrames: 64))
        defer { store.close() }
        try fill(store, 0..<10)
        // A reader keeps the snapshot it began on, so no checkpoint can copy past it: as under writes that never
        // pause, the checkpointer's own rounds leave the log unfinished.
        let reader = RawSQLite(path)
        #expect(reader.execute("BEGIN") == SQLITE_OK)
        #expect(reader.integer("SELECT count(*) FROM used_challenges") == 10)
        try fill(store, 10..<20)
        store.checkpointer.round()
        try fill(store, 20..<21)
        let short = try #require(logFrames())
        #expect(short < 64, "the log is \(short) frames: pick fewer challenges for it to stay short")
        #expect(store.writer.logCyclesEnded == 0)

        try fill(store, 21..<200)
        let long = try #require(logFrames())
        #expect(long >= 64)
        store.checkpointer.round()
        #expect(reader.execute("COMMIT") == SQLITE_OK)
        try fill(store, 200..<201)
        #expect(store.writer.logCyclesEnded == 1)
        // The log started over: it holds that one commit's frames.
        let after = try #require(logFrames())
        #expect(after < 8, "the log is \(after) frames after the writer's commit")
        #expect(RawSQLite(path).integer("SELECT count(*) FROM used_challenges") == 201)
    }

    private func fill(_ store: SQLiteStateStore, _ range: Range<Int>) throws {
        for index in range { _ = try store.consumeChallenge(withUnsafeBytes(of: index) { Array($0) }, expiresAt: expiresAt) }
    }

    /// The log's length in frames, from a passive checkpoint of its own (which copies what it can, and starts
    /// nothing over).
    private func logFrames() -> Int64? {
        RawSQLite(path).integer("PRAGMA wal_checkpoint(PASSIVE)", column: 1)
    }
}
