import CProtobufC
#if canImport(Glibc)
import Glibc
#endif

/// A protobuf-c allocator that serves unpacking from stack memory, so decoding a small request costs no heap
/// allocation; what does not fit goes to malloc and comes back through free.
enum UnpackArena {
    static let stackSize = 2048

    /// Runs `body` with an allocator whose memory lives until `body` returns.
    static func withAllocator<R>(_ body: (UnsafeMutablePointer<ProtobufCAllocator>) -> R) -> R {
        withUnsafeTemporaryAllocation(byteCount: stackSize, alignment: 16) { stack in
            var state = State(base: stack.baseAddress!, used: 0, capacity: stack.count)
            return withUnsafeMutablePointer(to: &state) { state in
                var allocator = ProtobufCAllocator(alloc: arenaAlloc, free: arenaFree, allocator_data: state)
                return withUnsafeMutablePointer(to: &allocator, body)
            }
        }
    }

    fileprivate struct State {
        let base: UnsafeMutableRawPointer
        var used: Int
        let capacity: Int
    }
}

private func arenaAlloc(_ data: UnsafeMutableRawPointer?, _ size: Int) -> UnsafeMutableRawPointer? {
    let state = data!.assumingMemoryBound(to: UnpackArena.State.self)
    let start = (state.pointee.used + 15) & ~15
    guard start + size <= state.pointee.capacity else { return malloc(size) }
    state.pointee.used = start + size
    return state.pointee.base + start
}

private func arenaFree(_ data: UnsafeMutableRawPointer?, _ pointer: UnsafeMutableRawPointer?) {
    guard let pointer else { return }
    let state = data!.assumingMemoryBound(to: UnpackArena.State.self)
    let base = state.pointee.base
    if pointer >= base && pointer < base + state.pointee.capacity { return }  // stack memory: freed with the arena
    free(pointer)
}
