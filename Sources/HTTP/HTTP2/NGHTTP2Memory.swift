import CNghttp2
import Glibc

/// The allocator every HTTP/2 session uses: glibc's, except that a new block of a page or more starts on a page
/// boundary with its whole pages handed back to the kernel (`MADV_DONTNEED`), so they count toward the server's
/// memory only once something is written to them.
///
/// Why: each session allocates a 16 KiB outbound frame buffer and a 4 KiB zeroed stream table up front, and an idle
/// connection writes only its SETTINGS frame, into the buffer's first page. Over TLS both land on heap pages the
/// handshake dirtied, so they stayed resident: 10,000 idle TLS connections held 416.5 MB, against the 200 MB the
/// benchmark allows (BENCHMARKS.md, eleventh session). Dropping a block's pages costs one system call, and nghttp2
/// allocates blocks this big only when a session starts or outgrows a buffer or its stream table, not per request.
enum NGHTTP2Memory {
    private static let pageBytes = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// The allocator to hand to `nghttp2_session_server_new3` (which copies it).
    static var allocator: nghttp2_mem {
        nghttp2_mem(
            mem_user_data: nil,
            malloc: { size, _ in NGHTTP2Memory.allocate(size, zeroed: false) },
            free: { pointer, _ in Glibc.free(pointer) },
            calloc: { count, size, _ in
                let (bytes, overflow) = count.multipliedReportingOverflow(by: size)
                return overflow ? nil : NGHTTP2Memory.allocate(bytes, zeroed: true)
            },
            realloc: { pointer, size, _ in
                // nghttp2 grows its buffers with realloc, starting from nil: that first call is a new block.
                pointer == nil ? NGHTTP2Memory.allocate(size, zeroed: false) : Glibc.realloc(pointer, size)
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
}
