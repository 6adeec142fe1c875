/// What a passive checkpoint (`PRAGMA wal_checkpoint(PASSIVE)`) reports: the log's length when it began, and how
/// much of that is now copied into the database, in frames. It copies only up to where the log was when it began:
/// frames written meanwhile are left for the next one.
struct WALCheckpoint {
    let frames: Int64
    let copied: Int64

    /// Everything the checkpoint saw is in the database.
    var copiedAll: Bool { copied == frames }
}

extension SQLiteConnection {
    /// A passive checkpoint on this connection: it waits for nobody. Nil when it did not run (another connection
    /// was checkpointing) or failed.
    func passiveCheckpoint() -> WALCheckpoint? {
        var busy: Int64 = 1, frames: Int64 = -1, copied: Int64 = -1
        try? query("PRAGMA wal_checkpoint(PASSIVE)", []) { row in
            busy = row.integer(0) ?? 1
            frames = row.integer(1) ?? -1
            copied = row.integer(2) ?? -1
        }
        return busy == 0 && frames >= 0 && copied >= 0 ? WALCheckpoint(frames: frames, copied: copied) : nil
    }
}
