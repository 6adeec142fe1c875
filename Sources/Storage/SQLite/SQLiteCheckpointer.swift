/// Copies the WAL back into the database file in the background (`PRAGMA wal_checkpoint(PASSIVE)` on a connection
/// of its own, every interval), so that no caller pays for it. Left to SQLite, a checkpoint runs inside the commit
/// that crosses `wal_autocheckpoint`: there it writes every page changed since the last one and fsyncs twice,
/// which took up to 160 ms on this project's machine, while the verifier thread leading that commit, and every
/// caller queued behind it, waited. A passive checkpoint neither waits for nor blocks the writer.
final class SQLiteCheckpointer: Sendable {
    private let loop = PeriodicLoop()
    private let connection: SQLiteConnection

    init(connection: SQLiteConnection) {
        self.connection = connection
    }

    /// The checkpointer thread's loop: a passive checkpoint every `interval` seconds until `stop()`.
    func run(every interval: Double) {
        loop.run(every: interval) {
            // Busy (another process is checkpointing) or failed: the next round, or the writer's own
            // autocheckpoint as a backstop, catches up.
            try? connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
        }
    }

    func stop() {
        loop.stop()
    }
}
