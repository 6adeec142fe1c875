import Foundation
import Glibc
@testable import Storage
import Testing

@Suite("SQLite WAL read ahead of the writer")
struct SQLiteWALCacheTests {
    /// Under the package's build folder, on the disk: a tmpfs (often the system's temporary directory) never drops
    /// a file's pages, and this test needs a filesystem that does.
    let directory: TemporaryDirectory
    var path: String { directory.file("state.sqlite") }
    var walPath: String { path + "-wal" }
    let expiresAt = Int64(Date().timeIntervalSince1970) + 300

    init() throws {
        directory = try TemporaryDirectory("wal-cache", under: ".build/test-files")
    }

    @Test("a round reads ahead past the log's end, and from the log's start only when the writer is likely to start the log over")
    func readAheadRanges() {
        let header = SQLiteCheckpointer.walHeaderBytes, ahead = SQLiteCheckpointer.readAheadBytes, frame = 4_120
        let end = header + 100_000 * frame
        #expect(SQLiteCheckpointer.readAheadRanges(frames: 100_000, frameBytes: frame, restartLikely: false) == [end..<(end + ahead)])
        #expect(
            SQLiteCheckpointer.readAheadRanges(frames: 100_000, frameBytes: frame, restartLikely: true)
                == [end..<(end + ahead), header..<(header + ahead)])
        // A short log: the two ranges meet, and are read as one.
        #expect(SQLiteCheckpointer.readAheadRanges(frames: 10, frameBytes: frame, restartLikely: true) == [header..<(header + 10 * frame + ahead)])
        // An empty log's end is its start.
        #expect(SQLiteCheckpointer.readAheadRanges(frames: 0, frameBytes: frame, restartLikely: true) == [header..<(header + ahead)])
    }

    @Test("a restart of the log is likely when the log was quiet since the last round and is all copied, or near the writer's backstop; not under steady writes")
    func restartLikely() {
        let backstop = 65_536
        func likely(frames: Int64, copied: Int64, previous: Int64) -> Bool {
            SQLiteCheckpointer.restartLikely(WALCheckpoint(frames: frames, copied: copied), previousRoundFrames: previous, backstopFrames: backstop)
        }
        #expect(likely(frames: 5_000, copied: 5_000, previous: 5_000))
        // Steady writes: every round copies all of its snapshot, and the log has grown since the last one.
        #expect(!likely(frames: 5_000, copied: 5_000, previous: 4_000))
        // A reader on an older snapshot held the copy back.
        #expect(!likely(frames: 5_000, copied: 3_000, previous: 5_000))
        #expect(likely(frames: 50_000, copied: 49_000, previous: 40_000))
    }

    @Test("the checkpointer reads back the WAL pages the writer overwrites next when the kernel dropped them; without it they stay dropped")
    func walPagesReadBack() throws {
        // Without the checkpointer: pages dropped stay dropped.
        do {
            let store = try SQLiteStateStore(SQLiteConfiguration(path: path, checkpointIntervalSeconds: 0))
            try fill(store, 0..<3_000)
            let dropped = try dropWALPages()
            try #require(dropped.resident < dropped.total / 4, "the filesystem under .build kept \(dropped) WAL pages")
            Thread.sleep(forTimeInterval: 0.3)
            #expect(try residentWALPages().resident < dropped.total / 4)
            store.close()
        }
        // With it: once the log has been copied into the database, the writer starts it over from its first frame,
        // overwriting the file from the start; the checkpointer reads what was dropped back in before it gets there.
        let store = try SQLiteStateStore(SQLiteConfiguration(path: path, checkpointIntervalSeconds: 0.05))
        try fill(store, 3_000..<6_000)
        // A round's read-ahead still in flight can fill the pages again as soon as they are dropped (once, 1,536 of
        // 3,549 were back): drop them until they are seen out of the cache, then wait for the checkpointer.
        var dropped = try dropWALPages()
        for _ in 0..<20 where dropped.resident >= dropped.total / 4 { dropped = try dropWALPages() }
        try #require(dropped.resident < dropped.total / 4)
        // Waits for the checkpointer's rounds and the kernel's read-ahead, not for a fixed time.
        var now = dropped
        for _ in 0..<100 where now.resident < now.total {
            Thread.sleep(forTimeInterval: 0.05)
            now = try residentWALPages()
        }
        #expect(now.resident == now.total, "\(now.resident) of \(now.total) WAL pages cached")
        store.close()
    }

    private func fill(_ store: SQLiteStateStore, _ range: Range<Int>) throws {
        for index in range { _ = try store.consumeChallenge(withUnsafeBytes(of: index) { Array($0) }, expiresAt: expiresAt) }
    }

    /// Writes the WAL's dirty pages to disk (a dirty page cannot be dropped) and asks the kernel to drop them all.
    private func dropWALPages() throws -> (resident: Int, total: Int) {
        let descriptor = open(walPath, O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        #expect(fdatasync(descriptor) == 0)
        #expect(posix_fadvise(descriptor, 0, 0, POSIX_FADV_DONTNEED) == 0)
        return try residentWALPages()
    }

    /// The WAL file's pages, and how many of them are in the page cache (`mincore` of a mapping never touched).
    private func residentWALPages() throws -> (resident: Int, total: Int) {
        let descriptor = open(walPath, O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var status = stat()
        try #require(fstat(descriptor, &status) == 0 && status.st_size > 0)
        let length = Int(status.st_size)
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let mapping = mmap(nil, length, PROT_READ, MAP_SHARED, descriptor, 0)
        try #require(mapping != MAP_FAILED)
        defer { munmap(mapping, length) }
        var flags = [UInt8](repeating: 0, count: (length + pageSize - 1) / pageSize)
        try #require(mincore(mapping, length, &flags) == 0)
        return (flags.count { $0 & 1 != 0 }, flags.count)
    }
}
