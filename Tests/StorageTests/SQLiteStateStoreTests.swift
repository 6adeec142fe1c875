import Foundation
import Storage
import Testing

@Suite("SQLite state store")
struct SQLiteStateStoreTests {
    let directory: TemporaryDirectory
    var path: String { directory.file("state.db") }

    init() throws { directory = try TemporaryDirectory("sqlite") }

    func record(_ id: UInt8) -> AttestedKeyRecord {
        AttestedKeyRecord(keyID: [id], appID: "1:1:ios:a", environment: "production", publicKey: [4, 1, 2],
                          firstSeen: 1_000, lastSeen: 1_000)
    }

    @Test("keeps consumed challenges, tokens, counters and revocations across closing and reopening the file")
    func survivesReopening() throws {
        let expiresAt = Int64(Date().timeIntervalSince1970) + 300
        do {
            let store = try SQLiteStateStore(SQLiteConfiguration(path: path))
            #expect(try store.consumeChallenge([1], expiresAt: expiresAt))
            #expect(try store.consumeToken("jti", expiresAt: expiresAt))
            try store.registerKey(record(1))
            try store.registerKey(record(2))
            #expect(try store.advanceCounter(keyID: [1], to: 41, now: 1_001) == .advanced)
            #expect(try store.revokeKey([2], now: 1_002))
            store.close()
        }
        let reopened = try SQLiteStateStore(SQLiteConfiguration(path: path))
        #expect(try !reopened.consumeChallenge([1], expiresAt: expiresAt))
        #expect(try !reopened.consumeToken("jti", expiresAt: expiresAt))
        #expect(try reopened.advanceCounter(keyID: [1], to: 41, now: 1_003) == .notIncreasing(stored: 41))
        #expect(try reopened.advanceCounter(keyID: [2], to: 1, now: 1_003) == .revoked)
        #expect(try reopened.attestedKey([1])?.counter == 41)
    }

    @Test("moves the receipts of a file that kept them in the keys' rows into their own table, schedule and all")
    func separatesReceipts() throws {
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let raw = RawSQLite(path)
        // The layout before key_receipts: the receipt in attested_keys, and the refresher's triggers reading it.
        #expect(raw.execute("""
            CREATE TABLE attested_keys (
                key_id BLOB PRIMARY KEY NOT NULL, app_id TEXT NOT NULL, environment TEXT NOT NULL,
                public_key BLOB NOT NULL, first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL,
                counter INTEGER NOT NULL, receipt BLOB, risk_metric INTEGER,
                revoked INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
            CREATE TABLE receipt_refresh (
                key_id BLOB PRIMARY KEY NOT NULL, next_at INTEGER NOT NULL, lease_owner TEXT, checked_at INTEGER,
                last_status INTEGER) WITHOUT ROWID;
            CREATE TRIGGER receipt_refresh_on_register AFTER INSERT ON attested_keys WHEN NEW.receipt IS NOT NULL
            BEGIN INSERT INTO receipt_refresh (key_id, next_at) VALUES (NEW.key_id, 0); END;
            CREATE TRIGGER receipt_refresh_on_new_receipt AFTER UPDATE OF receipt ON attested_keys
            WHEN NEW.receipt IS NOT NULL
            BEGIN INSERT OR IGNORE INTO receipt_refresh (key_id, next_at) VALUES (NEW.key_id, 0); END;
            INSERT INTO attested_keys VALUES (x'01', 'app', 'production', x'04', 10, 20, 7, x'3080', 2, 0);
            INSERT INTO attested_keys VALUES (x'02', 'app', 'production', x'04', 10, 20, 3, NULL, NULL, 0);
            """) == 0)  // SQLITE_OK
        let store = try SQLiteStateStore(SQLiteConfiguration(path: path))
        #expect(try store.attestedKey([1])?.receipt == [0x30, 0x80])
        #expect(try store.attestedKey([1])?.counter == 7)
        #expect(try store.attestedKey([1])?.riskMetric == 2)
        #expect(try store.attestedKey([2])?.receipt == nil)
        #expect(raw.integer("SELECT count(*) FROM pragma_table_info('attested_keys') WHERE name = 'receipt'") == 0)
        #expect(raw.integer("SELECT count(*) FROM receipt_refresh WHERE key_id = x'01'") == 1)
        // The counter row no longer carries the receipt, and advancing it keeps the receipt.
        #expect(try store.advanceCounter(keyID: [1], to: 8, now: 30) == .advanced)
        #expect(try store.attestedKey([1])?.receipt == [0x30, 0x80])
        store.close()
        let reopened = try SQLiteStateStore(SQLiteConfiguration(path: path))
        #expect(try reopened.attestedKey([1])?.counter == 8)
        #expect(try reopened.attestedKey([1])?.receipt == [0x30, 0x80])
    }

    @Test("keeps the challenges consumed in a file of the earlier layout consumed after opening it")
    func migratesEarlierLayout() throws {
        let expiresAt = Int64(Date().timeIntervalSince1970) + 300
        // An empty file is an empty database, which the raw connection (it does not create files) can open.
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let raw = RawSQLite(path)
        #expect(raw.execute("""
            CREATE TABLE consumed_challenges (nonce BLOB PRIMARY KEY NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID;
            CREATE INDEX consumed_challenges_expiry ON consumed_challenges (expires_at);
            INSERT INTO consumed_challenges VALUES (x'0102', \(expiresAt)), (x'03', \(expiresAt));
            """) == 0)  // SQLITE_OK
        let store = try SQLiteStateStore(SQLiteConfiguration(path: path))
        #expect(try !store.consumeChallenge([1, 2], expiresAt: expiresAt))
        #expect(try !store.consumeChallenge([3], expiresAt: expiresAt))
        #expect(try store.consumeChallenge([4], expiresAt: expiresAt))
        #expect(raw.integer("SELECT count(*) FROM sqlite_master WHERE name LIKE 'consumed_challenges%'") == 0)
        store.close()
        // Opening the migrated file again changes nothing.
        let reopened = try SQLiteStateStore(SQLiteConfiguration(path: path))
        #expect(try !reopened.consumeChallenge([1, 2], expiresAt: expiresAt))
        #expect(raw.integer("SELECT count(*) FROM used_challenges") == 3)
    }

    @Test("two stores on one file see each other's writes, and of 16 racing threads across them one wins")
    func sharedFile() throws {
        let expiresAt = Int64(Date().timeIntervalSince1970) + 300
        let first = try SQLiteStateStore(SQLiteConfiguration(path: path))
        let second = try SQLiteStateStore(SQLiteConfiguration(path: path))
        #expect(try first.consumeChallenge([1], expiresAt: expiresAt))
        #expect(try !second.consumeChallenge([1], expiresAt: expiresAt))
        try second.registerKey(record(5))
        #expect(try first.attestedKey([5]) != nil)
        #expect(try first.advanceCounter(keyID: [5], to: 1, now: 1_001) == .advanced)
        #expect(try second.attestedKey([5])?.counter == 1)
        #expect(try second.revokeKey([5], now: 1_002))
        #expect(try first.advanceCounter(keyID: [5], to: 2, now: 1_003) == .revoked)

        try first.registerKey(record(6))
        let outcomes = onThreads(16) { index in
            Result { () throws(StoreError) in try (index % 2 == 0 ? first : second).advanceCounter(keyID: [6], to: 9, now: 1_004) }
        }
        #expect(outcomes.filter { (try? $0.get()) == .advanced }.count == 1)
        #expect(outcomes.filter { (try? $0.get()) == .notIncreasing(stored: 9) }.count == 15)
    }

    @Test("sweeps challenges and tokens in bounded batches once their expiry and the clock-skew allowance have passed, and only those")
    func sweep() throws {
        let clock = TestClock()
        let store = try SQLiteStateStore(SQLiteConfiguration(path: path, sweepIntervalSeconds: 0, sweepBatchSize: 2, clock: clock.source))
        let now = clock.now
        for nonce in UInt8(0)..<5 { #expect(try store.consumeChallenge([nonce], expiresAt: now + 10)) }
        for nonce in UInt8(5)..<8 { #expect(try store.consumeChallenge([nonce], expiresAt: now + 1_000)) }
        for token in 0..<3 { #expect(try store.consumeToken("t\(token)", expiresAt: now + 10)) }
        #expect(try store.sweepExpired() == 0)
        clock.set(now + 11)
        #expect(try store.sweepExpired() == 0)
        #expect(try !store.consumeChallenge([0], expiresAt: now + 10))
        #expect(try !store.consumeToken("t0", expiresAt: now + 10))
        clock.set(now + 10 + 60)
        #expect(try store.sweepExpired() == 0)
        clock.set(now + 10 + 61)
        #expect(try store.sweepExpired() == 8)
        let raw = RawSQLite(path)
        #expect(raw.integer("SELECT count(*) FROM used_challenges") == 3)
        #expect(raw.integer("SELECT count(*) FROM consumed_tokens") == 0)
        #expect(try !store.consumeChallenge([7], expiresAt: now + 1_000))
    }

    @Test("deletes expired records in the background")
    func backgroundSweep() throws {
        let clock = TestClock()
        var configuration = SQLiteConfiguration(path: path, sweepIntervalSeconds: 0.05, clock: clock.source)
        configuration.clockSkewSeconds = 3
        let store = try SQLiteStateStore(configuration)
        #expect(try store.consumeChallenge([1], expiresAt: clock.now + 5))
        #expect(try store.consumeToken("jti", expiresAt: clock.now + 5))
        let raw = RawSQLite(path)
        #expect(raw.integer("SELECT count(*) FROM used_challenges") == 1)
        clock.set(clock.now + 9)
        // Waits for the sweeper thread, not for a duration: the loop ends as soon as the rows are gone.
        var remaining: Int64?
        for _ in 0..<200 {
            remaining = (raw.integer("SELECT count(*) FROM used_challenges") ?? -1)
                + (raw.integer("SELECT count(*) FROM consumed_tokens") ?? -1)
            if remaining == 0 { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(remaining == 0)
        _ = store
    }

    @Test("copies committed pages from the WAL into the database file in the background, and only when asked to")
    func backgroundCheckpoint() throws {
        func databaseBytes() -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int) ?? -1
        }
        let expiresAt = Int64(Date().timeIntervalSince1970) + 300
        // Without the checkpointer, 2,000 challenges (some 30 pages) stay in the WAL: under the automatic threshold.
        do {
            let store = try SQLiteStateStore(SQLiteConfiguration(path: path, checkpointIntervalSeconds: 0))
            let opened = databaseBytes()
            for index in 0..<2_000 { _ = try store.consumeChallenge(withUnsafeBytes(of: index) { Array($0) }, expiresAt: expiresAt) }
            Thread.sleep(forTimeInterval: 0.3)
            #expect(databaseBytes() == opened)
            store.close()
        }
        let store = try SQLiteStateStore(SQLiteConfiguration(path: path, checkpointIntervalSeconds: 0.05))
        let opened = databaseBytes()
        for index in 2_000..<4_000 { _ = try store.consumeChallenge(withUnsafeBytes(of: index) { Array($0) }, expiresAt: expiresAt) }
        // Waits for the checkpointer thread, not for a duration: the loop ends once the file has grown.
        for _ in 0..<200 where databaseBytes() <= opened { Thread.sleep(forTimeInterval: 0.05) }
        #expect(databaseBytes() > opened)
        #expect(RawSQLite(path).integer("SELECT count(*) FROM used_challenges") == 4_000)
    }

    @Test("the checkpointer runs on cores nothing else wants (SCHED_IDLE), the threads that commit at the normal policy")
    func checkpointerYieldsCores() throws {
        let store = try SQLiteStateStore(SQLiteConfiguration(path: path, checkpointIntervalSeconds: 0.05))
        defer { store.close() }
        // Other suites' stores have checkpointers too; this one's is named before it sets its policy.
        var policies: [Int32] = []
        for _ in 0..<200 where !policies.contains(Self.idlePolicy) {
            Thread.sleep(forTimeInterval: 0.01)
            policies = Self.policies(ofThreadsNamed: "sqlite-ckpt")
        }
        #expect(policies.contains(Self.idlePolicy), "policies of the sqlite-ckpt threads: \(policies)")
        #expect(Self.policies(ofThreadsNamed: "sqlite-sweep").allSatisfy { $0 == SCHED_OTHER })
        #expect(sched_getscheduler(0) == SCHED_OTHER)
    }

    static let idlePolicy: Int32 = 5

    /// The scheduling policy of each of this process's threads with this name.
    static func policies(ofThreadsNamed name: String) -> [Int32] {
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return threads.compactMap { thread -> Int32? in
            let comm = try? String(contentsOfFile: "/proc/self/task/\(thread)/comm", encoding: .utf8)
            guard comm?.trimmingCharacters(in: .newlines) == name, let id = Int32(thread) else { return nil }
            return sched_getscheduler(id)
        }
    }

    @Test("fails with StoreError when another process holds the write lock beyond the busy timeout")
    func lockedBeyondTimeout() throws {
        let store = try SQLiteStateStore(SQLiteConfiguration(path: path, busyTimeoutMilliseconds: 100))
        let expiresAt = Int64(Date().timeIntervalSince1970) + 300
        let other = RawSQLite(path)
        #expect(other.execute("BEGIN IMMEDIATE") == 0)
        #expect(throws: StoreError.self) { try store.consumeChallenge([1], expiresAt: expiresAt) }
        #expect(other.execute("COMMIT") == 0)
        // The failed batch was rolled back, so the challenge is still unused, and the store works again.
        #expect(try store.consumeChallenge([1], expiresAt: expiresAt))
    }

    @Test("fails with StoreError on a file that is not a database")
    func corruptFile() throws {
        try Data(repeating: 0x5A, count: 8_192).write(to: URL(fileURLWithPath: path))
        #expect(throws: StoreError.self) { try SQLiteStateStore(SQLiteConfiguration(path: path)) }
    }

    @Test("fails with StoreError when the file cannot be created")
    func unwritableDirectory() throws {
        #expect(throws: StoreError.self) {
            try SQLiteStateStore(SQLiteConfiguration(path: directory.file("missing/state.db")))
        }
    }

    @Test("puts the file in WAL mode, with either durability", arguments: [SQLiteConfiguration.Durability.processCrash, .powerLoss])
    func walMode(durability: SQLiteConfiguration.Durability) throws {
        let store = try SQLiteStateStore(SQLiteConfiguration(path: path, durability: durability))
        #expect(try store.consumeChallenge([1], expiresAt: Int64(Date().timeIntervalSince1970) + 300))
        // journal_mode is stored in the file, so a fresh connection reads it back.
        let raw = RawSQLite(path)
        #expect(raw.integer("SELECT count(*) FROM pragma_journal_mode WHERE journal_mode = 'wal'") == 1)
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test("refuses calls after close with StoreError")
    func closed() throws {
        let store = try SQLiteStateStore(SQLiteConfiguration(path: path))
        store.close()
        #expect(throws: StoreError.self) { try store.consumeToken("jti", expiresAt: 2_000_000_000) }
    }
}
