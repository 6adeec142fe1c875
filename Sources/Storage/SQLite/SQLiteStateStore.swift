import Basics
public import Batching
import Synchronization

/// The embedded state store of a single node: a SQLite file in WAL mode (see `SQLiteConfiguration` for how durable
/// an answer is). Writes go through one writer that group-commits them on the callers' threads; reads use their own
/// connections.
/// Several processes on one host may open the same file: SQLite's file locks serialise their write transactions
/// and each waits up to the busy timeout for the others.
///
/// A challenge or token at or past its expiry is refused, and a consumed one is never taken over (`ExpiryRule`):
/// a background sweeper deletes it in bounded batches once its expiry plus the clock-skew allowance has passed.
public final class SQLiteStateStore: StateStore {
    private let configuration: SQLiteConfiguration
    private let clock: TimeSource
    let writer: SQLiteWriter
    private let readers: SQLiteReaderPool
    private let sweeper: SQLiteSweeper
    let checkpointer: SQLiteCheckpointer
    /// Taken (set to nil) by `close()`, which joins them.
    private let threads = Mutex<(sweeper: WorkerThread?, checkpointer: WorkerThread?)>((nil, nil))

    /// Opens or creates the database and starts the sweeper and checkpointer threads.
    /// - Throws: `StoreError` when the file cannot be opened, is not a database, or its schema cannot be created.
    public init(_ configuration: SQLiteConfiguration) throws(StoreError) {
        self.configuration = configuration
        clock = configuration.clock
        let connection = try SQLiteConnection(path: configuration.path, create: true,
                                              busyTimeout: configuration.busyTimeoutMilliseconds)
        // With the background checkpointer, the writer checkpoints only as a backstop (256 MiB of WAL), should the
        // checkpointer fall behind; without it, every 32 MiB.
        let backstop = configuration.checkpointIntervalSeconds > 0 ? 65_536 : 8_192
        // Several nodes may set up one fresh file at the same instant: each step is retried while another holds
        // the lock, within the busy timeout.
        try connection.retryingWhileLocked(for: configuration.busyTimeoutMilliseconds) { () throws(StoreError) in
            // journal_mode is stored in the file, so every process opening it later is in WAL mode too.
            try connection.execute("PRAGMA journal_mode = WAL")
            switch configuration.durability {
            case .processCrash: try connection.execute("PRAGMA synchronous = NORMAL")
            case .powerLoss: try connection.execute("PRAGMA synchronous = FULL")
            }
            // The writer's working set: keep the B-tree pages cached (64 MiB) and mapped (256 MiB).
            try connection.execute("PRAGMA cache_size = -65536")
            try connection.execute("PRAGMA mmap_size = 268435456")
            try connection.execute("PRAGMA wal_autocheckpoint = \(backstop)")
            try connection.execute("BEGIN IMMEDIATE")
            do throws(StoreError) {
                try connection.execute(SQLiteSchema.create)
                try connection.execute(SQLiteSchema.migrate)
                var receiptColumn = false
                try connection.query(SQLiteSchema.hasReceiptColumn, []) { row in receiptColumn = (row.integer(0) ?? 0) > 0 }
                if receiptColumn { try connection.execute(SQLiteSchema.separateReceipts) }
                try connection.execute("COMMIT")
            } catch {
                if connection.inTransaction { try? connection.execute("ROLLBACK") }
                throw error
            }
            try SQLiteReceiptSchema.install(on: connection)
        }
        writer = SQLiteWriter(connection: connection, maxBatchSize: configuration.maxBatchSize)
        sweeper = SQLiteSweeper(writer: writer, clock: clock, batchSize: configuration.sweepBatchSize,
                                clockSkewSeconds: configuration.clockSkewSeconds)
        readers = SQLiteReaderPool(path: configuration.path, busyTimeout: configuration.busyTimeoutMilliseconds)
        let checkpointConnection = try SQLiteConnection(path: configuration.path, create: false,
                                                        busyTimeout: configuration.busyTimeoutMilliseconds)
        switch configuration.durability {
        case .processCrash: try checkpointConnection.execute("PRAGMA synchronous = NORMAL")
        case .powerLoss: try checkpointConnection.execute("PRAGMA synchronous = FULL")
        }
        let writer = self.writer
        checkpointer = try SQLiteCheckpointer(connection: checkpointConnection, databasePath: configuration.path,
                                              backstopFrames: backstop, restartFrames: configuration.logRestartFrames,
                                              endCycle: { writer.endLogCycle() })
        try startThreads()
    }

    deinit {
        close()
    }

    /// Stops the sweeper and the checkpointer; writes already queued are still committed, later ones throw
    /// `StoreError`.
    public func close() {
        let threads = self.threads.withLock { threads in
            defer { threads = (nil, nil) }
            return threads
        }
        // The sweeper first: a sweep in progress still needs the writer.
        sweeper.stop()
        threads.sweeper?.join()
        checkpointer.stop()
        threads.checkpointer?.join()
        writer.stop()
    }

    public func consumeChallenge(_ nonce: [UInt8], expiresAt: Int64) throws(StoreError) -> Bool {
        try Self.changed(writer.submit(.consumeChallenge(nonce: nonce, expiresAt: expiresAt, now: clock.unixSeconds())))
    }

    public func registerKey(_ record: AttestedKeyRecord) throws(StoreError) {
        _ = try writer.submit(.registerKey(record))
    }

    public func attestedKey(_ keyID: [UInt8]) throws(StoreError) -> AttestedKeyRecord? {
        try readers.withConnection { connection throws(StoreError) in
            var record: AttestedKeyRecord?
            try connection.query(SQLiteSchema.selectKey, [.blob(keyID)]) { row in record = Self.record(row) }
            return record
        }
    }

    public func riskMetric(of keyID: [UInt8]) throws(StoreError) -> Int? {
        try readers.withConnection { connection throws(StoreError) in
            var metric: Int?
            try connection.query(SQLiteSchema.selectRiskMetric, [.blob(keyID)]) { row in metric = row.integer(0).map { Int($0) } }
            return metric
        }
    }

    public func advanceCounter(keyID: [UInt8], to counter: UInt32, now: Int64) throws(StoreError) -> CounterAdvance {
        guard case .counter(let advance) = try writer.submit(.advanceCounter(keyID: keyID, counter: counter, now: now)) else {
            throw StoreError("sqlite: unexpected outcome")
        }
        return advance
    }

    public func revokeKey(_ keyID: [UInt8], now: Int64) throws(StoreError) -> Bool {
        try Self.changed(writer.submit(.revokeKey(keyID: keyID, now: now)))
    }

    public func consumeToken(_ tokenID: String, expiresAt: Int64, joining batch: Batch?, completion: @escaping StoreCompletion<Bool>) {
        writer.submit(.consumeToken(id: tokenID, expiresAt: expiresAt, now: clock.unixSeconds()), joining: batch,
                      completion: decoding(completion, Self.changed))
    }

    public func consumeChallenge(
        _ nonce: [UInt8], expiresAt: Int64, thenRegister record: AttestedKeyRecord, joining batch: Batch?,
        completion: @escaping StoreCompletion<Bool>
    ) {
        writer.submit(consumeThenRegister(nonce, expiresAt, record), joining: batch, completion: decoding(completion, Self.registered))
    }

    public func consumeChallenge(
        _ nonce: [UInt8], expiresAt: Int64, thenAdvance keyID: [UInt8], to counter: UInt32, now: Int64,
        joining batch: Batch?, completion: @escaping StoreCompletion<ChallengeThenCounter>
    ) {
        writer.submit(consumeThenAdvance(nonce, expiresAt, keyID, counter, now), joining: batch,
                      completion: decoding(completion, Self.challengeThenCounter))
    }

    private func consumeThenRegister(_ nonce: [UInt8], _ expiresAt: Int64, _ record: AttestedKeyRecord) -> SQLiteWrite {
        .sequence(first: .consumeChallenge(nonce: nonce, expiresAt: expiresAt, now: clock.unixSeconds()), then: .registerKey(record))
    }

    private func consumeThenAdvance(_ nonce: [UInt8], _ expiresAt: Int64, _ keyID: [UInt8], _ counter: UInt32, _ now: Int64) -> SQLiteWrite {
        .sequence(first: .consumeChallenge(nonce: nonce, expiresAt: expiresAt, now: clock.unixSeconds()),
                  then: .advanceCounter(keyID: keyID, counter: counter, now: now))
    }

    private static func registered(_ outcome: SQLiteWrite.Outcome) throws(StoreError) -> Bool {
        guard case .sequence(.changed(let consumed), _) = outcome else { throw StoreError("sqlite: unexpected outcome") }
        return consumed
    }

    private static func challengeThenCounter(_ outcome: SQLiteWrite.Outcome) throws(StoreError) -> ChallengeThenCounter {
        switch outcome {
        case .sequence(.changed(false), nil): return .challengeReplayed
        case .sequence(.changed(true), .counter(let advance)?): return .counter(advance)
        default: throw StoreError("sqlite: unexpected outcome")
        }
    }

    /// Deletes the challenges and tokens whose expiry plus the clock-skew allowance has passed, one bounded batch
    /// per transaction, and returns how many went. The background sweeper calls this every `sweepIntervalSeconds`.
    @discardableResult
    public func sweepExpired() throws(StoreError) -> Int {
        try sweeper.sweep()
    }

    private static func changed(_ outcome: SQLiteWrite.Outcome) throws(StoreError) -> Bool {
        guard case .changed(let changed) = outcome else { throw StoreError("sqlite: unexpected outcome") }
        return changed
    }

    private func startThreads() throws(StoreError) {
        if configuration.checkpointIntervalSeconds > 0 {
            let checkpointer = self.checkpointer, interval = configuration.checkpointIntervalSeconds
            let thread = try WorkerThread(name: "sqlite-ckpt") { checkpointer.run(every: interval) }
            threads.withLock { $0.checkpointer = thread }
        }
        if configuration.sweepIntervalSeconds > 0 {
            let sweeper = self.sweeper, interval = configuration.sweepIntervalSeconds
            let thread = try WorkerThread(name: "sqlite-sweep") { sweeper.run(every: interval) }
            threads.withLock { $0.sweeper = thread }
        }
    }

    private static func record(_ row: SQLiteRow) -> AttestedKeyRecord? {
        guard let keyID = row.blob(0), let appID = row.text(1), let environment = row.text(2),
              let publicKey = row.blob(3), let firstSeen = row.integer(4), let lastSeen = row.integer(5),
              let counter = row.integer(6), let revoked = row.integer(9) else { return nil }
        return AttestedKeyRecord(
            keyID: keyID, appID: appID, environment: environment, publicKey: publicKey, firstSeen: firstSeen,
            lastSeen: lastSeen, counter: UInt32(clamping: counter), receipt: row.blob(7),
            riskMetric: row.integer(8).map { Int($0) }, revoked: revoked != 0)
    }
}
