/// The tables and every statement the store runs, in one place so they can be read against each other.
enum SQLiteSchema {
    /// Created on open when absent; `WITHOUT ROWID` because every table is looked up by its natural key.
    ///
    /// Used challenges are keyed by expiry first, then nonce: a challenge's expiry is sealed in it with its nonce
    /// (`ChallengeCodec`), so a replay always carries the same pair. Expiries only grow as challenges are issued,
    /// so consuming one writes near the right edge of a single B-tree, which each batch shares, and the sweeper
    /// deletes a leading range of it; a nonce-keyed table with an expiry index wrote two random pages per challenge.
    /// Files made before hold `consumed_challenges`: its rows are moved over on open (`migrate`).
    ///
    /// A key's receipt (about 4 KB) lives in `key_receipts`, apart from the key's row: every assertion rewrites the
    /// row (counter, last seen), and with the receipt in it the row spilled onto overflow pages that each update
    /// read and wrote again. Files made before hold the receipt in `attested_keys.receipt`: `separateReceipts`
    /// moves it.
    static let create = """
        CREATE TABLE IF NOT EXISTS used_challenges (
            expires_at INTEGER NOT NULL, nonce BLOB NOT NULL, PRIMARY KEY (expires_at, nonce)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS consumed_tokens (
            jti TEXT PRIMARY KEY NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS consumed_tokens_expiry ON consumed_tokens (expires_at);
        CREATE TABLE IF NOT EXISTS attested_keys (
            key_id BLOB PRIMARY KEY NOT NULL,
            app_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            public_key BLOB NOT NULL,
            first_seen INTEGER NOT NULL,
            last_seen INTEGER NOT NULL,
            counter INTEGER NOT NULL,
            risk_metric INTEGER,
            revoked INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS key_receipts (
            key_id BLOB PRIMARY KEY NOT NULL, receipt BLOB NOT NULL) WITHOUT ROWID;
        """

    /// Whether `attested_keys` still has the receipt column of files made before `key_receipts`.
    static let hasReceiptColumn = "SELECT count(*) FROM pragma_table_info('attested_keys') WHERE name = 'receipt'"

    /// Moves the receipts of such a file into `key_receipts` and drops the column (and the triggers that read it,
    /// which `SQLiteReceiptSchema` makes again on `key_receipts`). Run in one transaction.
    static let separateReceipts = """
        DROP TRIGGER IF EXISTS receipt_refresh_on_register;
        DROP TRIGGER IF EXISTS receipt_refresh_on_new_receipt;
        INSERT OR REPLACE INTO key_receipts (key_id, receipt)
            SELECT key_id, receipt FROM attested_keys WHERE receipt IS NOT NULL;
        ALTER TABLE attested_keys DROP COLUMN receipt;
        """

    /// Moves the used challenges of a file made by an earlier attestd (nonce-keyed, with an expiry index) into
    /// `used_challenges`, so none of them can be replayed after an upgrade. On a current file it creates and drops
    /// an empty table. Run in the same transaction as `create`.
    static let migrate = """
        CREATE TABLE IF NOT EXISTS consumed_challenges (
            nonce BLOB PRIMARY KEY NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID;
        INSERT OR IGNORE INTO used_challenges (expires_at, nonce) SELECT expires_at, nonce FROM consumed_challenges;
        DROP TABLE consumed_challenges;
        """

    /// Consume-once: inserts the challenge if its expiry is after now, so one change means "first use". A row
    /// already there is never taken over, even past its expiry: the sweeper deletes it only once the clock-skew
    /// allowance has passed too (`ExpiryRule`). Parameters: nonce, expires_at, now.
    static let consumeChallenge = """
        INSERT INTO used_challenges (expires_at, nonce) SELECT ?2, ?1 WHERE ?2 > ?3
        ON CONFLICT (expires_at, nonce) DO NOTHING
        """

    /// The same for limited-use tokens. Parameters: jti, expires_at, now.
    static let consumeToken = """
        INSERT INTO consumed_tokens (jti, expires_at) SELECT ?1, ?2 WHERE ?2 > ?3
        ON CONFLICT (jti) DO NOTHING
        """

    /// Registers a key, or refreshes a re-attested one while keeping its counter, revocation and first sighting.
    /// The receipt goes with `storeReceipt` or `dropReceipt`.
    static let registerKey = """
        INSERT INTO attested_keys
            (key_id, app_id, environment, public_key, first_seen, last_seen, counter, risk_metric, revoked)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
        ON CONFLICT (key_id) DO UPDATE SET
            app_id = excluded.app_id, environment = excluded.environment, public_key = excluded.public_key,
            last_seen = excluded.last_seen, risk_metric = excluded.risk_metric
        """

    /// A key's latest receipt. Parameters: key_id, receipt.
    static let storeReceipt = """
        INSERT INTO key_receipts (key_id, receipt) VALUES (?1, ?2)
        ON CONFLICT (key_id) DO UPDATE SET receipt = excluded.receipt
        """

    /// A key re-attested without a receipt keeps none. Parameter: key_id.
    static let dropReceipt = "DELETE FROM key_receipts WHERE key_id = ?1"

    /// Compare-and-advance in one statement. Parameters: counter, now, key_id.
    static let advanceCounter = """
        UPDATE attested_keys SET counter = ?1, last_seen = ?2 WHERE key_id = ?3 AND counter < ?1 AND revoked = 0
        """

    /// Why an advance changed nothing (read in the same transaction). Parameter: key_id.
    static let counterState = "SELECT counter, revoked FROM attested_keys WHERE key_id = ?1"

    /// Parameters: now, key_id.
    static let revokeKey = "UPDATE attested_keys SET revoked = 1, last_seen = ?1 WHERE key_id = ?2"

    static let selectKey = """
        SELECT k.key_id, k.app_id, k.environment, k.public_key, k.first_seen, k.last_seen, k.counter, r.receipt,
               k.risk_metric, k.revoked
        FROM attested_keys k LEFT JOIN key_receipts r ON r.key_id = k.key_id WHERE k.key_id = ?1
        """

    /// A key's risk metric alone. Parameter: key_id.
    static let selectRiskMetric = "SELECT risk_metric FROM attested_keys WHERE key_id = ?1"

    /// Deletes at most ?2 rows that expired before ?1 (now less the clock-skew allowance).
    static let sweepChallenges = """
        DELETE FROM used_challenges WHERE (expires_at, nonce) IN
            (SELECT expires_at, nonce FROM used_challenges WHERE expires_at < ?1 ORDER BY expires_at LIMIT ?2)
        """

    static let sweepTokens = """
        DELETE FROM consumed_tokens WHERE jti IN (SELECT jti FROM consumed_tokens WHERE expires_at < ?1 LIMIT ?2)
        """
}
