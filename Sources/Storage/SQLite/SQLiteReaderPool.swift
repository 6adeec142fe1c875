import Synchronization

/// Connections for reads, so `attestedKey` never queues behind the writer: in WAL mode readers see the last
/// committed state without taking the write lock. A reader is taken for one query and put back, so there are at
/// most as many as threads reading at once (the verifier pool's size).
final class SQLiteReaderPool: Sendable {
    private let idle = Mutex<[SQLiteConnection]>([])
    private let path: String
    private let busyTimeout: Int32

    init(path: String, busyTimeout: Int32) {
        self.path = path
        self.busyTimeout = busyTimeout
    }

    func withConnection<T>(_ body: (SQLiteConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        let connection: SQLiteConnection
        if let reused = idle.withLock({ $0.popLast() }) { connection = reused } else { connection = try open() }
        let result = try body(connection)
        idle.withLock { $0.append(connection) }
        return result
    }

    private func open() throws(StoreError) -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path, create: false, busyTimeout: busyTimeout)
        try connection.execute("PRAGMA query_only = ON")
        return connection
    }
}
