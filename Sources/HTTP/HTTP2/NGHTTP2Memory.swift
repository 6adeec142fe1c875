import CNghttp2
import Glibc

/// The allocator every HTTP/2 session uses: glibc's, except that a new block of a page or more starts on a page
/// boundary with its whole pages handed back to the kernel (`MADV_DONTNEED`), so they count toward the server's
/// memory only once something is written to them.
///
/// Why: each session allocates a 16 KiB outbound frame buffer and a 4 KiB zeroed stream table up front, and an idle
/// connection writes only its SETTINGS frame, into the buffer's first page. Over TLS both land on heap pages the
/// handshake dirtied, so they stayed resident: 10,000 idle TLS connections held 416.5 MB, where the benchmark
/// allows 256 MB. Dropping a block's pages costs one system call, and nghttp2
/// allocates blocks this big only when a session starts or outgrows a buffer or its stream table, not per request.
///
/// A session's allocator also remembers where its frame buffer and its stream table are (``SessionRecord``), so that
/// a connection gone quiet can hand back the pages its last frames were written to (``releaseFrameBuffer(of:)``) and
/// the stream table's pages once they are all zeros again (``releaseZeroPages(of:)``).
enum NGHTTP2Memory {
    private static let pageBytes = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// The smallest block taken for a session's outbound frame buffer: nghttp2 sizes it for a frame of the
    /// largest default payload (16 KiB) plus its header, and allocates nothing else that large while a session
    /// is created.
    static let frameBufferMinimumBytes = 16 * 1024

    /// What one session's allocator keeps between calls (its `mem_user_data`).
    struct SessionRecord {
        /// True while `nghttp2_session_server_new3` runs: the block of ``frameBufferMinimumBytes`` or more
        /// allocated then is the frame buffer.
        var creating = false
        var frameBuffer: UnsafeMutableRawPointer?
        var frameBufferBytes = 0
        /// The latest zeroed block of a page or more: nghttp2's stream table, which reads all zeros again once its
        /// streams have closed (attestd turns RFC 7540 priorities off, so closed streams are not kept).
        var zeroedBlock: UnsafeMutableRawPointer?
        var zeroedBlockBytes = 0
    }

    /// The allocator to hand to `nghttp2_session_server_new3` (which copies it); with a `record`, it notes the
    /// session's frame buffer and its latest zeroed block there.
    static func allocator(recordingInto record: UnsafeMutablePointer<SessionRecord>? = nil) -> nghttp2_mem {
        nghttp2_mem(
            mem_user_data: UnsafeMutableRawPointer(record),
            malloc: { size, record in
                NGHTTP2Memory.noted(NGHTTP2Memory.allocate(size, zeroed: false), bytes: size, in: record)
            },
            free: { pointer, record in
                NGHTTP2Memory.forget(pointer, in: record)
                Glibc.free(pointer)
            },
            calloc: { count, size, record in
                let (bytes, overflow) = count.multipliedReportingOverflow(by: size)
                guard !overflow else { return nil }
                let block = NGHTTP2Memory.noted(NGHTTP2Memory.allocate(bytes, zeroed: true), bytes: bytes, in: record)
                NGHTTP2Memory.notedZeroed(block, bytes: bytes, in: record)
                return block
            },
            realloc: { pointer, size, record in
                // nghttp2 grows its buffers with realloc, starting from nil: that first call is a new block.
                guard let pointer else { return NGHTTP2Memory.noted(NGHTTP2Memory.allocate(size, zeroed: false), bytes: size, in: record) }
                NGHTTP2Memory.forget(pointer, in: record)
                return Glibc.realloc(pointer, size)
            })
    }

    /// `malloc` or `calloc`; a block of a page or more is page-aligned and its whole pages dropped. A dropped page
    /// reads as zeros (every page malloc hands out is private and anonymous), so a zeroed block only has to clear
    /// the part of its last page that was not dropped.
    static func allocate(_ bytes: Int, zeroed: Bool) -> UnsafeMutableRawPointer? {
        guard bytes >= pageBytes else { return zeroed ? calloc(1, bytes) : malloc(bytes) }
        var block: UnsafeMutableRawPointer?
        guard posix_memalign(&block, pageBytes, bytes) == 0, let block else { return nil }
        let wholePages = bytes & ~(pageBytes - 1)
        let dropped = madvise(block, wholePages, MADV_DONTNEED) == 0
        if zeroed { memset(block + (dropped ? wholePages : 0), 0, bytes - (dropped ? wholePages : 0)) }
        return block
    }

    /// Hands the whole pages of a session's frame buffer back to the kernel; returns the bytes handed back.
    ///
    /// Only when nghttp2 has nothing in flight: its last `nghttp2_session_mem_send` returned 0, which it does
    /// only once no frame is being sent and it has reset the buffer, and whatever it wrote there has been copied
    /// out. What the pages held is then dead, and the next frame is written over zeros.
    static func releaseFrameBuffer(of record: UnsafeMutablePointer<SessionRecord>) -> Int {
        guard let block = record.pointee.frameBuffer else { return 0 }
        let wholePages = record.pointee.frameBufferBytes & ~(pageBytes - 1)
        return madvise(block, wholePages, MADV_DONTNEED) == 0 ? wholePages : 0
    }

    /// Hands back the whole pages of a session's zeroed block that hold nothing but zeros: dropped, a page reads
    /// as zeros all the same. Pages already out of memory are not read (that would map them again). Returns the
    /// bytes handed back.
    static func releaseZeroPages(of record: UnsafeMutablePointer<SessionRecord>) -> Int {
        guard let block = record.pointee.zeroedBlock else { return 0 }
        let pages = record.pointee.zeroedBlockBytes / pageBytes
        guard pages > 0 else { return 0 }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: pages) { resident in
            guard mincore(block, pages * pageBytes, resident.baseAddress!) == 0 else { return 0 }
            var released = 0
            for page in 0..<pages where resident[page] & 1 != 0 {
                let start = block + page * pageBytes
                let words = UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt64.self), count: pageBytes / 8)
                guard words.allSatisfy({ $0 == 0 }), madvise(start, pageBytes, MADV_DONTNEED) == 0 else { continue }
                released += pageBytes
            }
            return released
        }
    }

    private static func notedZeroed(_ block: UnsafeMutableRawPointer?, bytes: Int, in record: UnsafeMutableRawPointer?) {
        guard let block, let record, bytes >= pageBytes else { return }
        // The latest, not the first: a table that grows is allocated anew before the old one is freed.
        let session = record.assumingMemoryBound(to: SessionRecord.self)
        session.pointee.zeroedBlock = block
        session.pointee.zeroedBlockBytes = bytes
    }

    private static func noted(
        _ block: UnsafeMutableRawPointer?, bytes: Int, in record: UnsafeMutableRawPointer?
    ) -> UnsafeMutableRawPointer? {
        guard let block, let record, bytes >= frameBufferMinimumBytes else { return block }
        let session = record.assumingMemoryBound(to: SessionRecord.self)
        if session.pointee.creating && session.pointee.frameBuffer == nil {
            session.pointee.frameBuffer = block
            session.pointee.frameBufferBytes = bytes
        }
        return block
    }

    private static func forget(_ pointer: UnsafeMutableRawPointer?, in record: UnsafeMutableRawPointer?) {
        guard let pointer, let record else { return }
        let session = record.assumingMemoryBound(to: SessionRecord.self)
        if session.pointee.frameBuffer == pointer { session.pointee.frameBuffer = nil }
        if session.pointee.zeroedBlock == pointer { session.pointee.zeroedBlock = nil }
    }
}
