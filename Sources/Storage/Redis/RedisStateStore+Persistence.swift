/// What the server keeps on disk, so that attestd can warn at start when a Redis restart would forget every
/// consumed challenge and token (`CONFIG GET appendonly` and `CONFIG GET save`).
public struct RedisPersistence: Sendable, Equatable {
    /// `appendonly yes`: every write is logged to the append-only file.
    public let appendOnly: Bool
    /// The `save` rules (RDB snapshots), empty when snapshots are off.
    public let saveRules: String

    /// Neither the append-only file nor snapshots: a restart starts empty.
    public var keepsNothingOnDisk: Bool { !appendOnly && saveRules.isEmpty }
}

extension RedisStateStore {
    /// Asks the server how it persists. Throws `StoreError` when it cannot answer or refuses CONFIG (managed Redis
    /// services often rename or forbid it).
    public func persistence() throws(StoreError) -> RedisPersistence {
        func setting(_ name: String) throws(StoreError) -> String {
            let reply = try pool.withConnection { connection throws(RedisFailure) in
                try connection.command(["CONFIG", "GET", name])
            }
            guard case .array(let items) = reply, items.count == 2, let value = items[1].text else {
                throw unexpected(reply, "CONFIG GET \(name)")
            }
            return value
        }
        let appendOnly = try setting("appendonly") == "yes"
        let save = try setting("save")
        return RedisPersistence(appendOnly: appendOnly, saveRules: save.allSatisfy(\.isWhitespace) ? "" : save)
    }
}
