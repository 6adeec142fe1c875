import Synchronization

/// A few easy handles kept for reuse. A caller takes one (or gets a new one when all are busy), uses it on its own
/// thread, and gives it back; handles beyond the pool's size are freed.
final class CurlHandlePool: Sendable {
    private let idle = Mutex<[CurlEasyHandle]>([])
    private let capacity: Int

    init(capacity: Int) { self.capacity = max(1, capacity) }

    func withHandle<T>(_ body: (CurlEasyHandle) -> T) -> T? {
        guard let handle = idle.withLock({ $0.popLast() }) ?? CurlEasyHandle() else { return nil }
        let result = body(handle)
        idle.withLock { if $0.count < capacity { $0.append(handle) } }
        return result
    }
}
