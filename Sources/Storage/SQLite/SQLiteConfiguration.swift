public import Basics

/// How `SQLiteStateStore` opens and maintains its file.
public struct SQLiteConfiguration: Sendable {
    /// How much of an acknowledged write survives a crash.
    public enum Durability: Sendable {
        /// `synchronous=NORMAL` in WAL mode: a committed batch is in the WAL file (the OS page cache) before any
        /// caller is answered, so it survives kill -9 of attestd; the last batches before a power loss or kernel
        /// crash may be lost, because the WAL is fsynced only at checkpoints.
        case processCrash
        /// `synchronous=FULL`: the WAL is fsynced at every commit (one fsync per batch, thanks to group commit),
        /// so acknowledged writes survive a power loss too.
        case powerLoss
    }

    /// The database file; created with its schema if absent. Several processes may share it.
    public var path: String
    public var durability: Durability
    /// How long a write waits for another process's write lock before failing with `StoreError`.
    public var busyTimeoutMilliseconds: Int32
    /// The most operations committed in one transaction.
    public var maxBatchSize: Int
    /// How often expired challenges and tokens are deleted; 0 turns the background sweeper off.
    public var sweepIntervalSeconds: Double
    /// The most rows one sweep transaction deletes, so a sweep never holds the write lock for long.
    public var sweepBatchSize: Int
    /// How often a background thread copies the WAL back into the database (a passive checkpoint), so commits
    /// never do it themselves; 0 leaves it to SQLite's automatic checkpoint inside the commits.
    public var checkpointIntervalSeconds: Double
    /// The log's length (frames) from which the checkpointer ends its cycle while writes go on: it does the slow
    /// part (copying and syncing) in the background and leaves the writer a short last step, after which the log
    /// starts over (see `SQLiteCheckpointer.prepareRestart`).
    public var logRestartFrames: Int
    /// The time records are refused and swept by (injectable for tests).
    public var clock: TimeSource
    /// How long past its expiry a consumed challenge or token is kept before the sweeper may delete it.
    public var clockSkewSeconds: Int64 = ExpiryRule.defaultClockSkewSeconds

    public init(path: String, durability: Durability = .processCrash, busyTimeoutMilliseconds: Int32 = 5_000,
                maxBatchSize: Int = 512, sweepIntervalSeconds: Double = 30, sweepBatchSize: Int = 1_000,
                checkpointIntervalSeconds: Double = 0.2, logRestartFrames: Int = 16_384, clock: TimeSource = .system) {
        self.path = path
        self.durability = durability
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        self.maxBatchSize = maxBatchSize
        self.sweepIntervalSeconds = sweepIntervalSeconds
        self.sweepBatchSize = sweepBatchSize
        self.checkpointIntervalSeconds = checkpointIntervalSeconds
        self.logRestartFrames = logRestartFrames
        self.clock = clock
    }
}
