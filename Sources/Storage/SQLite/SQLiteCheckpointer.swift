import Glibc
import Synchronization

/// Copies the WAL back into the database file in the background (`PRAGMA wal_checkpoint(PASSIVE)` on a connection
/// of its own, every interval), so that no caller pays for it. Left to SQLite, a checkpoint runs inside the commit
/// that crosses `wal_autocheckpoint`: there it writes every page changed since the last one and fsyncs twice,
/// which took up to 160 ms on this project's machine, while the verifier thread leading that commit, and every
/// caller queued behind it, waited. A passive checkpoint neither waits for nor blocks the writer.
///
/// Under steady writes a round also prepares the end of the log's cycle once the log is long, leaving the writer a
/// short last step where it had a whole checkpoint (see `prepareRestart`).
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

    /// The log's length (frames) from which a round prepares the end of its cycle (`prepareRestart`).
    private let restartFrames: Int
    /// Asks the writer to take a cycle's last step.
    private let endCycle: @Sendable () -> Void
    /// The log's length when the last preparation ended: while it stays so, nothing was written since, and the
    /// writer's next commit starts the log over anyway.
    private let preparedLength = Atomic<Int64>(-1)
    /// The log's length at the last round.
    private let lastRoundFrames = Atomic<Int64>(-1)
    /// Frames a cycle's last step may be left to copy: about a millisecond of the writer's time.
    static let lastStepFrames = 256
    /// The most checkpoints one preparation runs to get there: writes that outpace the disk leave more.
    static let preparationCheckpoints = 4

    init(connection: SQLiteConnection, databasePath: String, backstopFrames: Int, restartFrames: Int,
         endCycle: @escaping @Sendable () -> Void) throws(StoreError) {
        self.connection = connection
        self.walPath = databasePath + "-wal"
        self.backstopFrames = backstopFrames
        self.restartFrames = restartFrames
        self.endCycle = endCycle
        var pageSize: Int64 = 4096
        try connection.query("PRAGMA page_size", []) { row in pageSize = row.integer(0) ?? pageSize }
        frameBytes = 24 + Int(pageSize)
    }

    /// The checkpointer thread's loop: a round every `interval` seconds until `stop()`, on cores nothing else wants.
    ///
    /// A round copies what the writer committed since the last one, 1.5–2.4 ms of CPU at a quarter of this
    /// machine's ES256 assertion rate. At the normal policy the threads serving requests that woke meanwhile waited
    /// that long for a core (`perf sched`), every round: the slowest answer of each 0.1 s alternated between 0.7 and
    /// 2–5 ms. At `SCHED_IDLE` a round runs only while a core would otherwise
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

    /// One round: a passive checkpoint, then, past `restartFrames` and unless a reader's older snapshot held the
    /// checkpoint back, the end of the log's cycle prepared, and the WAL ahead of the writer back into the cache.
    func round() {
        // Busy (another process is checkpointing) or failed: the next round, or the writer's own
        // autocheckpoint as a backstop, catches up.
        guard var log = connection.passiveCheckpoint() else { return }
        var writerAsked = false
        if log.frames >= restartFrames && Self.copiedNearlyAll(log) && log.frames != preparedLength.load(ordering: .relaxed) {
            (log, writerAsked) = prepareRestart(log)
            preparedLength.store(log.frames, ordering: .relaxed)
        }
        let previous = lastRoundFrames.exchange(log.frames, ordering: .relaxed)
        let restart = writerAsked || Self.restartLikely(log, previousRoundFrames: previous, backstopFrames: backstopFrames)
        readAheadOfWriter(Self.readAheadRanges(frames: Int(log.frames), frameBytes: frameBytes, restartLikely: restart))
    }

    /// Whether the writer is likely to start the log over soon, by itself: it does so at its next commit after a
    /// checkpoint that copied everything up to its own last commit. That is so when nothing was written since the
    /// last round and this one copied it all; under steady writes a round copies all of its own snapshot, but never
    /// all the writer wrote meanwhile. And the writer checkpoints itself at its backstop.
    static func restartLikely(_ log: WALCheckpoint, previousRoundFrames: Int64, backstopFrames: Int) -> Bool {
        (log.copiedAll && log.frames == previousRoundFrames) || log.frames >= Int64(backstopFrames - backstopFrames / 4)
    }

    /// The bytes of the WAL file the writer writes next: the `readAheadBytes` after the log's end, and, when a
    /// restart is likely, as many from the log's start (one range when the two meet).
    static func readAheadRanges(frames: Int, frameBytes: Int, restartLikely: Bool) -> [Range<Int>] {
        let logEnd = walHeaderBytes + frames * frameBytes
        let afterEnd = logEnd..<(logEnd + readAheadBytes)
        guard frames > 0 && restartLikely else { return [afterEnd] }
        let start = walHeaderBytes..<(walHeaderBytes + readAheadBytes)
        return start.upperBound >= logEnd ? [start.lowerBound..<afterEnd.upperBound] : [afterEnd, start]
    }

    /// Ends the log's cycle under steady writes, leaving the writer only a short last step.
    ///
    /// The log starts over from its first frame only when the writer finds it all copied. Under steady writes the
    /// checkpointer's rounds never leave it so: frames keep coming while a round copies. Left alone, the log grew
    /// to the writer's backstop (256 MiB), and the writer's own checkpoint there synced the frames since the last
    /// round and every database page the rounds had copied: in ES256 assertion runs at half the saturating rate
    /// that stopped all commits, and the answers waiting on them, for 5–14 ms every two seconds.
    ///
    /// Here the checkpointer does the slow part off the writer's path: it syncs the database file and copies again
    /// (a checkpoint syncs the log first), until fewer than `lastStepFrames` came in during the last copy. Then
    /// it asks the writer to end the cycle: before its next batch the writer copies the few frames left and syncs
    /// them, and its commit starts the log over, syncing only the log's header.
    ///
    /// Only while the checkpoints copy all they see: a reader on an older snapshot (a backup, a long query) keeps
    /// them from copying past it, and then the writer could not end the cycle either, only sync frames in vain
    /// before its batches. The cycle ends after the reader does.
    /// Returns the last checkpoint's report, and whether the writer was asked to end the cycle.
    private func prepareRestart(_ first: WALCheckpoint) -> (WALCheckpoint, writerAsked: Bool) {
        var log = first
        for _ in 0..<Self.preparationCheckpoints {
            _ = connection.syncDatabaseFile()
            guard let next = connection.passiveCheckpoint() else { break }
            let arrived = next.frames - log.frames
            log = next
            if arrived <= Int64(Self.lastStepFrames) { break }
        }
        guard Self.copiedNearlyAll(log) else { return (log, false) }
        _ = connection.syncDatabaseFile()
        endCycle()
        return (log, true)
    }

    /// Whether a checkpoint copied all it saw but for what the writer's last step may take: under steady writes a
    /// checkpoint can stop a frame or so short, at the writer's own snapshot, and only a reader on an older one
    /// leaves more.
    static func copiedNearlyAll(_ log: WALCheckpoint) -> Bool {
        log.frames - log.copied <= Int64(lastStepFrames)
    }

    /// Reads back (asynchronously, `POSIX_FADV_WILLNEED`) whatever the kernel has dropped from its page cache of
    /// these byte ranges of the WAL file (after the log's end, where the writer goes on, and its start).
    ///
    /// Under steady writes the WAL cycles through up to 256 MiB (a passive checkpoint rarely catches up with the
    /// writer, so the log restarts from its beginning only at the writer's backstop), and its frames straddle the
    /// kernel's pages. Writing a frame into a page that is not cached makes the kernel read that page from disk
    /// first, synchronously, on the thread leading the commit, while every answer waiting for that commit waits
    /// too. A kernel that reclaims idle page cache on its own drops the parts of the WAL the writer has not come
    /// back to for a while: a VM with DAMON reclaim pages out unmapped file pages idle for a minute. In an ES256
    /// assertion run the server issued 227 single-page reads in 3 s; over seven interleaved rounds the commit path
    /// waited for such reads (`ext4_block_write_begin`, in a 3 s trace) 1–301 times a round without this, and with
    /// it none in five rounds, 65 and 5 in the other two. The kernel reads ahead at
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
