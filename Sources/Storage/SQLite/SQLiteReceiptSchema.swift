/// The receipt refresher's table and statements (see `ReceiptRefreshStore`), beside the registry's.
enum SQLiteReceiptSchema {
    /// Created on open with the other tables. A key enters the schedule, due at once, when it is registered with a
    /// receipt (the triggers, so the registration statements stay as they are; a key already scheduled keeps its
    /// time); keys registered before the table existed are added once. `next_at` doubles as the lease: a claim
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
        CREATE TRIGGER IF NOT EXISTS receipt_refresh_on_register AFTER INSERT ON attested_keys
        WHEN NEW.receipt IS NOT NULL
        BEGIN
            INSERT INTO receipt_refresh (key_id, next_at)
                SELECT NEW.key_id, 0 WHERE NOT EXISTS (SELECT 1 FROM receipt_refresh WHERE key_id = NEW.key_id);
        END;
        CREATE TRIGGER IF NOT EXISTS receipt_refresh_on_new_receipt AFTER UPDATE OF receipt ON attested_keys
        WHEN NEW.receipt IS NOT NULL
        BEGIN
            INSERT INTO receipt_refresh (key_id, next_at)
                SELECT NEW.key_id, 0 WHERE NOT EXISTS (SELECT 1 FROM receipt_refresh WHERE key_id = NEW.key_id);
        END;
        INSERT OR IGNORE INTO receipt_refresh (key_id, next_at)
            SELECT key_id, 0 FROM attested_keys WHERE receipt IS NOT NULL AND revoked = 0;
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
            WHERE r.next_at <= ?1 AND (k.key_id IS NULL OR k.revoked = 1 OR k.receipt IS NULL)
            ORDER BY r.next_at LIMIT ?2)
        """

    /// Claims the keys due first. Parameters: now, lease end, owner, limit.
    static let claim = """
        UPDATE receipt_refresh SET next_at = ?2, lease_owner = ?3
        WHERE key_id IN (
            SELECT r.key_id FROM receipt_refresh r JOIN attested_keys k ON k.key_id = r.key_id
            WHERE r.next_at <= ?1 AND k.revoked = 0 AND k.receipt IS NOT NULL
            ORDER BY r.next_at LIMIT ?4)
        RETURNING key_id
        """

    /// Releases the lease with the outcome, only for its owner. Parameters: next_at, checked_at, status, key_id, owner.
    static let complete = """
        UPDATE receipt_refresh SET next_at = ?1, lease_owner = NULL, checked_at = ?2, last_status = ?3
        WHERE key_id = ?4 AND lease_owner = ?5
        """

    /// Parameters: receipt, risk metric, key_id.
    static let storeReceipt = "UPDATE attested_keys SET receipt = ?1, risk_metric = ?2 WHERE key_id = ?3"
}
