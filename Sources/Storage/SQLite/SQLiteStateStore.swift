import Synchronization

/// The embedded state store of a single node: a SQLite file in WAL mode (see `SQLiteConfiguration` for how durable
/// an answer is). Writes go through one writer thread that group-commits them; reads use their own connections.
/// Several processes on one host may open the same file: SQLite's file locks serialise their write transactions
/// and each waits up to the busy timeout for the others.
///
/// Expired challenges and tokens are deleted by a background sweeper in bounded batches; an expired record that
/// is still there does not block reuse of its nonce, because consuming takes over expired rows.
public final class SQLiteStateStore: StateStore {
    private let configuration: SQLiteConfiguration
    private let clock: @Sendable () -> Int64
    private let writer: SQLiteWriter
    private let readers: SQLiteReaderPool
    private let sweeperWake = ConditionLock()
    // Guarded by `sweeperWake`.
    nonisolated(unsafe) private var sweeperStopping = false
    private let threads = Mutex<[WorkerThread]>([])

    /// Opens or creates the database and starts the writer and sweeper threads.
    /// - Throws: `StoreError` when the file cannot be opened, is not a database, or its schema cannot be created.
    public init(_ configuration: SQLiteConfiguration) throws(StoreError) {
        self.configuration = configuration
        clock = configuration.clock ?? UnixClock.now
        let connection = try SQLiteConnection(path: configuration.path, create: true,
                                              busyTimeout: configuration.busyTimeoutMilliseconds)
        // journal_mode is stored in the file, so every process opening it later is in WAL mode too.
        try connection.execute("PRAGMA journal_mode = WAL")
        switch configuration.durability {
        case .processCrash: try connection.execute("PRAGMA synchronous = NORMAL")
        case .powerLoss: try connection.execute("PRAGMA synchronous = FULL")
        }
        try connection.execute("BEGIN IMMEDIATE")
        do throws(StoreError) {
            try connection.execute(SQLiteSchema.create)
            try connection.execute("COMMIT")
        } catch {
            if connection.inTransaction { try? connection.execute("ROLLBACK") }
            throw error
        }
        writer = SQLiteWriter(connection: connection, maxBatchSize: configuration.maxBatchSize)
        readers = SQLiteReaderPool(path: configuration.path, busyTimeout: configuration.busyTimeoutMilliseconds)
        try startThreads()
    }

    deinit {
        close()
    }

    /// Finishes the writes already queued, stops the threads and closes the file. Later calls throw `StoreError`.
    public func close() {
        sweeperWake.withLock {
            sweeperStopping = true
            sweeperWake.signal()
        }
        writer.stop()
        let threads = self.threads.withLock { threads in
            defer { threads = [] }
            return threads
        }
        for thread in threads { thread.join() }
    }

    public func consumeChallenge(_ nonce: [UInt8], expiresAt: Int64) throws(StoreError) -> Bool {
        try changed(writer.submit(.consumeChallenge(nonce: nonce, expiresAt: expiresAt, now: clock())))
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

    public func advanceCounter(keyID: [UInt8], to counter: UInt32, now: Int64) throws(StoreError) -> CounterAdvance {
        guard case .counter(let advance) = try writer.submit(.advanceCounter(keyID: keyID, counter: counter, now: now)) else {
            throw StoreError("sqlite: unexpected outcome")
        }
        return advance
    }

    public func consumeToken(_ tokenID: String, expiresAt: Int64) throws(StoreError) -> Bool {
        try changed(writer.submit(.consumeToken(id: tokenID, expiresAt: expiresAt, now: clock())))
    }

    public func revokeKey(_ keyID: [UInt8], now: Int64) throws(StoreError) -> Bool {
        try changed(writer.submit(.revokeKey(keyID: keyID, now: now)))
    }

    /// Deletes the challenges and tokens that have expired, one bounded batch per transaction, and returns how many
    /// went. The background sweeper calls this every `sweepIntervalSeconds`.
    @discardableResult
    public func sweepExpired() throws(StoreError) -> Int {
        let limit = max(1, configuration.sweepBatchSize)
        var total = 0
        while true {
            guard case .swept(let count) = try writer.submit(.sweep(now: clock(), limit: limit)) else {
                throw StoreError("sqlite: unexpected outcome")
            }
            total += count
            // Each table deletes at most `limit`: fewer in both means nothing expired is left.
            if count < limit { return total }
        }
    }

    private func changed(_ outcome: SQLiteWrite.Outcome) throws(StoreError) -> Bool {
        guard case .changed(let changed) = outcome else { throw StoreError("sqlite: unexpected outcome") }
        return changed
    }

    private func startThreads() throws(StoreError) {
        let writer = self.writer
        let writerThread = try WorkerThread { writer.run() }
        threads.withLock { $0.append(writerThread) }
        guard configuration.sweepIntervalSeconds > 0 else { return }
        let interval = configuration.sweepIntervalSeconds
        // The sweeper holds the store weakly, so dropping the store's last reference still runs deinit.
        let sweeperThread = try WorkerThread { [weak self, sweeperWake] in
            while true {
                let stopping = sweeperWake.withLock {
                    sweeperWake.wait(seconds: interval)
                    return self?.sweeperStopping ?? true
                }
                guard !stopping, let store = self else { return }
                // A failed sweep is retried next round; the records it would have removed block nothing meanwhile.
                _ = try? store.sweepExpired()
            }
        }
        threads.withLock { $0.append(sweeperThread) }
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
