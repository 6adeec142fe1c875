import CNghttp2
import Glibc
import Testing

@testable import HTTP

@Suite("nghttp2's allocator")
struct NGHTTP2MemoryTests {
    let allocator = NGHTTP2Memory.allocator()

    /// Sizes on either side of the page boundaries, and nghttp2's own: its stream table and its frame buffer.
    var sizes: [Int] { [100, pageBytes - 1, pageBytes, pageBytes + 1, 2 * pageBytes, 16_394, 5 * pageBytes + 7] }

    @Test("a block of a page or more starts with its whole pages out of memory, though the heap under it was dirty")
    func wholePagesDropped() throws {
        for size in sizes where size >= pageBytes {
            try dirtyHeap(size)
            let block = try #require(allocator.malloc!(size, nil))
            defer { allocator.free!(block, nil) }
            #expect(Int(bitPattern: block) % pageBytes == 0, "\(size) bytes")
            let wholePages = size / pageBytes
            #expect(residentPages(block, pages: wholePages) == 0, "\(size) bytes")
            // Written to, a page is memory again: nothing else is lost.
            block.storeBytes(of: 7, toByteOffset: size - 1, as: UInt8.self)
            memset(block, 1, pageBytes)
            #expect(residentPages(block, pages: 1) == 1)
        }
    }

    @Test("calloc gives zeros over a dirty heap, and realloc from nothing is a new block that keeps what it is given")
    func zeroedAndGrown() throws {
        for size in sizes {
            try dirtyHeap(size)
            let block = try #require(allocator.calloc!(1, size, nil))
            let bytes = UnsafeRawBufferPointer(start: block, count: size)
            #expect(bytes.allSatisfy { $0 == 0 }, "\(size) bytes")
            allocator.free!(block, nil)

            let grown = try #require(allocator.realloc!(nil, size, nil))
            memset(grown, 0x5A, size)
            let larger = try #require(allocator.realloc!(grown, size * 2, nil))
            #expect(UnsafeRawBufferPointer(start: larger, count: size).allSatisfy { $0 == 0x5A }, "\(size) bytes")
            allocator.free!(larger, nil)
        }
        #expect(allocator.calloc!(Int.max / 2, 4, nil) == nil)
    }

    /// Leaves a freed block of `size` bytes full of non-zero bytes where the next block of that size is likely to go.
    private func dirtyHeap(_ size: Int) throws {
        let block = try #require(malloc(size + pageBytes))
        memset(block, 0xAB, size + pageBytes)
        free(block)
    }
}
