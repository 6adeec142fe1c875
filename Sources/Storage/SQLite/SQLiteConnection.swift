import Basics
import CSQLite
import Glibc

/// One SQLite connection and its prepared statements, each prepared once and reused.
///
/// `@unchecked Sendable`: a connection is used by one thread at a time (the writer thread, or a reader that took it
/// from the pool's lock), which is what SQLITE_OPEN_NOMUTEX requires.
final class SQLiteConnection: @unchecked Sendable {
    private let handle: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]
    /// The result code of the last failure, for telling a lock held by another connection from other errors.
    private var lastFailure: Int32 = SQLITE_OK

    /// Opens (creating if asked) the database at `path`; `busyTimeout` milliseconds is how long a statement waits
    /// for a lock held by another connection, possibly in another process, before it fails with SQLITE_BUSY.
    init(path: String, create: Bool, busyTimeout: Int32) throws(StoreError) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0)
        let opened = sqlite3_open_v2(path, &handle, flags, nil)
        guard opened == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(opened))
            sqlite3_close_v2(handle)
            throw StoreError("sqlite: cannot open \(path): \(message) (\(opened))")
        }
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, busyTimeout)
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    /// Runs SQL without parameters or results (pragmas, schema, transaction control).
    func execute(_ sql: String) throws(StoreError) {
        let result = sqlite3_exec(handle, sql, nil, nil, nil)
        guard result == SQLITE_OK else { throw error(result, sql) }
    }

    /// Runs one statement and returns how many rows it changed.
    @discardableResult
    func run(_ sql: String, _ values: [SQLiteValue]) throws(StoreError) -> Int {
        try query(sql, values) { _ in }
        return Int(sqlite3_changes(handle))
    }

    /// Runs one statement, handing each result row to `row`.
    func query(_ sql: String, _ values: [SQLiteValue], row: (SQLiteRow) -> Void) throws(StoreError) {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (offset, value) in values.enumerated() {
            let bound = bind(value, to: Int32(offset + 1), in: statement)
            guard bound == SQLITE_OK else { throw error(bound, sql) }
        }
        while true {
            let stepped = sqlite3_step(statement)
            if stepped == SQLITE_DONE { return }
            guard stepped == SQLITE_ROW else { throw error(stepped, sql) }
            row(SQLiteRow(columns: (0..<sqlite3_column_count(statement)).map { column(statement, $0) }))
        }
    }

    /// Runs `body`, and again while it fails because another connection holds a lock, until `milliseconds` have
    /// passed. SQLite's busy handler does not cover every such lock: changing the journal mode needs an exclusive
    /// lock that it does not wait for, so two processes setting up one fresh file at the same instant would
    /// otherwise fail with "database is locked" although the busy timeout had not passed.
    func retryingWhileLocked<T>(for milliseconds: Int32, _ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        let deadline = MonotonicClock.nanoseconds() + UInt64(max(0, milliseconds)) * 1_000_000
        var pause: UInt32 = 1_000
        while true {
            lastFailure = SQLITE_OK
            do {
                return try body()
            } catch {
                let primary = lastFailure & 0xFF
                guard primary == SQLITE_BUSY || primary == SQLITE_LOCKED, MonotonicClock.nanoseconds() < deadline else { throw error }
                usleep(pause)
                pause = min(pause * 2, 50_000)
            }
        }
    }

    /// Whether a transaction is open: after a failed statement SQLite may or may not have rolled it back itself.
    var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Writes the database file's changed pages to disk and waits for them (fdatasync), through SQLite's own handle
    /// of the file. A descriptor of our own would not do: closing any descriptor of a file drops every POSIX lock
    /// the process holds on it, and with them the SHARED lock by which SQLite's connections keep other processes
    /// from taking the database out of WAL mode under them. False when SQLite has no handle or the sync failed.
    func syncDatabaseFile() -> Bool {
        var file: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK,
            let file, let sync = file.pointee.pMethods?.pointee.xSync
        else { return false }
        return sync(file, SQLITE_SYNC_NORMAL | SQLITE_SYNC_DATAONLY) == SQLITE_OK
    }

    private func prepared(_ sql: String) throws(StoreError) -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        let result = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard result == SQLITE_OK, let statement else { throw error(result, sql) }
        statements[sql] = statement
        return statement
    }

    private func bind(_ value: SQLiteValue, to index: Int32, in statement: OpaquePointer) -> Int32 {
        switch value {
        case .integer(let integer):
            return sqlite3_bind_int64(statement, index, integer)
        case .text(let text):
            return sqlite3_bind_text(statement, index, text, -1, transient)
        case .blob(let bytes):
            // A zero-length blob must still be a blob, not NULL, so it gets a valid pointer.
            return bytes.withUnsafeBytes { buffer in
                sqlite3_bind_blob(statement, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count), transient)
            }
        case .null:
            return sqlite3_bind_null(statement, index)
        }
    }

    private func column(_ statement: OpaquePointer, _ index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(statement, index))
        case SQLITE_TEXT:
            return .text(String(cString: sqlite3_column_text(statement, index)))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, index))
            guard count > 0, let bytes = sqlite3_column_blob(statement, index) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default:
            return .null
        }
    }

    private func error(_ code: Int32, _ sql: String) -> StoreError {
        lastFailure = code
        let statement = sql.split(separator: " ").prefix(3).joined(separator: " ")
        return StoreError("sqlite: \(String(cString: sqlite3_errmsg(handle))) (\(code)) in \(statement)…")
    }
}

/// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import: SQLite copies the bound
/// bytes before the call returns, so Swift's buffers need to live only for the call.
private let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
