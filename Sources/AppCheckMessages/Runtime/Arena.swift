import CProtobufC
#if canImport(Glibc)
import Glibc
#endif

/// Scratch memory for one C message under construction: bump allocation from a stack buffer, spilling into
/// heap blocks that are freed together when the arena ends.
struct Arena: ~Copyable {
    /// Bytes of stack the encoder lends; enough for every small message attestd sends.
    static let stackSize = 1024
    private static let blockSize = 4096

    private var block: UnsafeMutableRawPointer
    private var used = 0
    private var capacity: Int
    private var heapBlocks: [UnsafeMutableRawPointer] = []

    init(_ stack: UnsafeMutableRawBufferPointer) {
        block = stack.baseAddress!
        capacity = stack.count
    }

    /// `size` zeroed bytes aligned for any C type, alive as long as the arena.
    mutating func allocate(_ size: Int) -> UnsafeMutableRawPointer {
        let start = (used + 15) & ~15
        if start + size <= capacity {
            used = start + size
            let pointer = block + start
            pointer.initializeMemory(as: UInt8.self, repeating: 0, count: size)
            return pointer
        }
        if size > Self.blockSize / 2 {
            // Large payloads (an attestation statement) get a block of their own.
            let pointer = calloc(1, size)!
            heapBlocks.append(pointer)
            return pointer
        }
        block = calloc(1, Self.blockSize)!
        heapBlocks.append(block)
        capacity = Self.blockSize
        used = size
        return block
    }

    deinit {
        for pointer in heapBlocks { free(pointer) }
    }
}
