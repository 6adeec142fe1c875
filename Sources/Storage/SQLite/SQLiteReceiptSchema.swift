/// The receipt refresher's table and statements (see `ReceiptRefreshStore`), beside the registry's.
enum SQLiteReceiptSchema {
    /// Created on open with the other tables. A key enters the schedule, due at once, when a receipt is stored for
    /// it in `key_receipts` (the triggers, so the registration statements stay as they are; a key already scheduled
    /// keeps its time); keys registered before the table existed are added once. `next_at` doubles as the lease: a claim
    /// moves it to the lease's end. The triggers test for the row instead of `INSERT OR IGNORE`, because the
    /// registration's own conflict clause (an upsert) would override theirs.
    static let create = """
        CREATE TABLE IF NOT EXISTS receipt_refresh (
            key_id BLOB PRIMARY KEY NOT NULL,
            next_at INTEGER NOT NULL,
            lease_owner TEXT,
            checked_at INTEGER,
            last_status INTEGER) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS receipt_refresh_due ON receipt_refresh (next_at);
        CREATE TRIGGER IF NOT EXISTS receipt_refresh_on_receipt AFTER INSERT ON key_receipts
        BEGIN
            INSERT INTO receipt_refresh (key_id, next_at)
                SELECT NEW.key_id, 0 WHERE NOT EXISTS (SELECT 1 FROM receipt_refresh WHERE key_id = NEW.key_id);
        END;
        CREATE TRIGGER IF NOT EXISTS receipt_refresh_on_new_receipt_row AFTER UPDATE OF receipt ON key_receipts
        BEGIN
            INSERT INTO receipt_refresh (key_id, next_at)
                SELECT NEW.key_id, 0 WHERE NOT EXISTS (SELECT 1 FROM receipt_refresh WHERE key_id = NEW.key_id);
        END;
        INSERT OR IGNORE INTO receipt_refresh (key_id, next_at)
            SELECT r.key_id, 0 FROM key_receipts r JOIN attested_keys k ON k.key_id = r.key_id WHERE k.revoked = 0;
        """

    /// Creates the table and triggers when absent, in a transaction of its own, after the registry's tables.
    static func install(on connection: SQLiteConnection) throws(StoreError) {
        try connection.execute("BEGIN IMMEDIATE")
        do throws(StoreError) {
            try connection.execute(create)
            try connection.execute("COMMIT")
        } catch {
            if connection.inTransaction { try? connection.execute("ROLLBACK") }
            throw error
        }
    }

    /// Takes revoked keys and keys without a receipt that are due out of the schedule, so they are not read again
    /// on every claim (a key that gets a receipt again comes back through the trigger). Parameters: now, limit.
    static let dropUnrefreshable = """
        DELETE FROM receipt_refresh WHERE key_id IN (
            SELECT r.key_id FROM receipt_refresh r LEFT JOIN attested_keys k ON k.key_id = r.key_id
            LEFT JOIN key_receipts kr ON kr.key_id = r.key_id
            WHERE r.next_at <= ?1 AND (k.key_id IS NULL OR k.revoked = 1 OR kr.key_id IS NULL)
            ORDER BY r.next_at LIMIT ?2)
        """

    /// Claims the keys due first. Parameters: now, lease end, owner, limit.
    static let claim = """
        UPDATE receipt_refresh SET next_at = ?2, lease_owner = ?3
        WHERE key_id IN (
            SELECT r.key_id FROM receipt_refresh r JOIN attested_keys k ON k.key_id = r.key_id
            JOIN key_receipts kr ON kr.key_id = r.key_id
            WHERE r.next_at <= ?1 AND k.revoked = 0
            ORDER BY r.next_at LIMIT ?4)
        RETURNING key_id
        """

    /// Releases the lease with the outcome, only for its owner. Parameters: next_at, checked_at, status, key_id, owner.
    static let complete = """
        UPDATE receipt_refresh SET next_at = ?1, lease_owner = NULL, checked_at = ?2, last_status = ?3
        WHERE key_id = ?4 AND lease_owner = ?5
        """

    /// A refreshed receipt's risk metric (the receipt itself goes with `SQLiteSchema.storeReceipt`). Parameters: risk
    /// metric, key_id.
    static let storeRiskMetric = "UPDATE attested_keys SET risk_metric = ?1 WHERE key_id = ?2"
}
