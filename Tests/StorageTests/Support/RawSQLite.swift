import CSQLite

/// A plain SQLite connection beside the store's, to look at or lock the file the way another process would.
final class RawSQLite {
    private var handle: OpaquePointer?

    init(_ path: String) {
        sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE, nil)
        sqlite3_busy_timeout(handle, 2_000)
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs SQL and returns the SQLite result code.
    @discardableResult
    func execute(_ sql: String) -> Int32 { sqlite3_exec(handle, sql, nil, nil, nil) }

    /// A column (the first unless told) of the first row of `sql`, as an integer.
    func integer(_ sql: String, column: Int32 = 0) -> Int64? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else { return nil }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { return nil }
        return sqlite3_column_int64(statement, column)
    }
}
