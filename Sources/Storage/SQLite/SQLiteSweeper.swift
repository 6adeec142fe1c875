import Basics

/// Deletes expired challenges and tokens every interval, once their clock-skew allowance has passed too, on a thread of its own, through the store's writer (so a
/// sweep is just another write, in batches bounded by `batchSize` so it never holds the write lock for long).
final class SQLiteSweeper: Sendable {
    private let loop = PeriodicLoop()
    private let writer: SQLiteWriter
    private let clock: TimeSource
    private let batchSize: Int
    private let clockSkewSeconds: Int64

    init(writer: SQLiteWriter, clock: TimeSource, batchSize: Int, clockSkewSeconds: Int64) {
        self.writer = writer
        self.clock = clock
        self.batchSize = max(1, batchSize)
        self.clockSkewSeconds = max(0, clockSkewSeconds)
    }

    /// Deletes everything whose expiry plus the allowance is before now, one batch per transaction, and returns how
    /// many records went.
    func sweep() throws(StoreError) -> Int {
        var total = 0
        while true {
            guard case .swept(let count) = try writer.submit(.sweep(expiredBefore: clock.unixSeconds() - clockSkewSeconds, limit: batchSize)) else {
                throw StoreError("sqlite: unexpected outcome")
            }
            total += count
            // Each table deletes at most `batchSize`: fewer in all means nothing expired is left.
            if count < batchSize { return total }
        }
    }

    /// The sweeper thread's loop: sweeps every `interval` seconds until `stop()`.
    func run(every interval: Double) {
        loop.run(every: interval) {
            // A failed sweep is retried next round; the records it would have removed block nothing meanwhile.
            _ = try? sweep()
        }
    }

    func stop() {
        loop.stop()
    }
}
