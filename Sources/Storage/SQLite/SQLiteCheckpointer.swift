import Glibc

/// Copies the WAL back into the database file in the background (`PRAGMA wal_checkpoint(PASSIVE)` on a connection
/// of its own, every interval), so that no caller pays for it. Left to SQLite, a checkpoint runs inside the commit
/// that crosses `wal_autocheckpoint`: there it writes every page changed since the last one and fsyncs twice,
/// which took up to 160 ms on this project's machine, while the verifier thread leading that commit, and every
/// caller queued behind it, waited. A passive checkpoint neither waits for nor blocks the writer.
///
/// Each round also asks the kernel to keep the part of the WAL file the writer comes to next in its page cache
/// (see `readAheadOfWriter`).
final class SQLiteCheckpointer: Sendable {
    private let loop = PeriodicLoop()
    private let connection: SQLiteConnection
    /// The database's WAL file (`<database>-wal`).
    private let walPath: String
    /// Bytes of one WAL frame: a 24-byte header and a page.
    private let frameBytes: Int
    /// Bytes of the WAL file's header, before its first frame.
    static let walHeaderBytes = 32
    /// The most the kernel reads ahead in one call here (the device's `read_ahead_kb`): longer ranges go in steps.
    static let readAheadStepBytes = 8 << 20
    /// How far past the writer's last frame each round reads ahead: more than the writer writes between two rounds
    /// (at 0.2 s, about 16 MiB in an attestation run, the busiest).
    static let readAheadBytes = 32 << 20

    /// The log's length (frames) at which the writer checkpoints itself and starts the log over
    /// (`wal_autocheckpoint`).
    private let backstopFrames: Int

    init(connection: SQLiteConnection, walPath: String, backstopFrames: Int) throws(StoreError) {
        self.connection = connection
        self.walPath = walPath
        self.backstopFrames = backstopFrames
        var pageSize: Int64 = 4096
        try connection.query("PRAGMA page_size", []) { row in pageSize = row.integer(0) ?? pageSize }
        frameBytes = 24 + Int(pageSize)
    }

    /// The checkpointer thread's loop: a round every `interval` seconds until `stop()`, on cores nothing else wants.
    ///
    /// A round copies what the writer committed since the last one, 1.5–2.4 ms of CPU at a quarter of this
    /// machine's ES256 assertion rate. At the normal policy the threads serving requests that woke meanwhile waited
    /// that long for a core (`perf sched`), every round: the slowest answer of each 0.1 s alternated between 0.7 and
    /// 2–5 ms (BENCHMARKS.md, eleventh session). At `SCHED_IDLE` a round runs only while a core would otherwise
    /// idle, and gives the core up as soon as anything else wakes. No thread serving requests ever waits for it: a
    /// passive checkpoint blocks no writer. On cores kept busy it falls behind, and the writer checkpoints itself at
    /// `backstopFrames` as it does without this thread; only while a round is under way does the writer's checkpoint
    /// find it busy and skip, so the log grows past the backstop until the round ends (on a saturated core
    /// `SCHED_IDLE` still gets a small share). A thread may always lower its own policy; raising it back would need
    /// `CAP_SYS_NICE`, so it stays idle.
    func run(every interval: Double) {
        var parameters = sched_param(sched_priority: 0)
        _ = sched_setscheduler(0, Self.idlePolicy, &parameters)
        loop.run(every: interval) { round() }
    }

    /// Linux's `SCHED_IDLE` (glibc defines it only for GNU sources).
    static let idlePolicy: Int32 = 5

    /// One round: a passive checkpoint, then the WAL ahead of the writer back into the cache.
    func round() {
        // Busy (another process is checkpointing) or failed: the next round, or the writer's own
        // autocheckpoint as a backstop, catches up.
        var frames: Int64 = -1, copied: Int64 = -1
        try? connection.query("PRAGMA wal_checkpoint(PASSIVE)", []) { row in
            frames = row.integer(1) ?? -1
            copied = row.integer(2) ?? -1
        }
        guard frames >= 0 else { return }
        let logEnd = Self.walHeaderBytes + Int(frames) * frameBytes
        var ranges = [logEnd..<(logEnd + Self.readAheadBytes)]
        // Everything copied, or the log near the writer's backstop: the writer may soon start the log over, from
        // its first frame. One range when the two meet.
        if frames > 0 && (copied == frames || frames >= backstopFrames - backstopFrames / 4) {
            let start = Self.walHeaderBytes..<(Self.walHeaderBytes + Self.readAheadBytes)
            if start.upperBound >= logEnd {
                ranges = [start.lowerBound..<ranges[0].upperBound]
            } else {
                ranges.append(start)
            }
        }
        readAheadOfWriter(ranges)
    }

    /// Reads back (asynchronously, `POSIX_FADV_WILLNEED`) whatever the kernel has dropped from its page cache of
    /// these byte ranges of the WAL file (after the log's end, where the writer goes on, and its start).
    ///
    /// Under steady writes the WAL cycles through up to 256 MiB (a passive checkpoint rarely catches up with the
    /// writer, so the log restarts from its beginning only at the writer's backstop), and its frames straddle the
    /// kernel's pages. Writing a frame into a page that is not cached makes the kernel read that page from disk
    /// first, synchronously, on the thread leading the commit, while every answer waiting for that commit waits
    /// too. A kernel that reclaims idle page cache on its own drops the parts of the WAL the writer has not come
    /// back to for a while: this project's VM pages out unmapped file pages idle for a minute (DAMON). In an ES256
    /// assertion run the server issued 227 single-page reads in 3 s; over seven interleaved rounds the commit path
    /// waited for such reads (`ext4_block_write_begin`, in a 3 s trace) 1–301 times a round without this, and with
    /// it none in five rounds, 65 and 5 in the other two (BENCHMARKS.md, tenth session). The kernel reads ahead at
    /// most 8 MiB a call here (the device's read-ahead), hence the steps; for cached pages a step costs about
    /// 0.13 ms. The price: up to 64 MiB of the WAL (what follows the log, and its start) stay in the page cache.
    func readAheadOfWriter(_ ranges: [Range<Int>]) {
        let descriptor = open(walPath, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }  // no WAL yet (nothing written) or already removed
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return }
        for range in ranges {
            let end = min(Int(status.st_size), range.upperBound)
            for offset in stride(from: range.lowerBound, to: end, by: Self.readAheadStepBytes) {
                _ = posix_fadvise(descriptor, off_t(offset), off_t(min(Self.readAheadStepBytes, end - offset)), POSIX_FADV_WILLNEED)
            }
        }
    }

    func stop() {
        loop.stop()
    }
}
