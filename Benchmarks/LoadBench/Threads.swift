import Glibc

/// Runs `body(index)` on `count` new threads and waits for all of them: the load workers and the crypto-bound
/// measurements each need a thread of their own, not a task on a shared pool.
enum Threads {
    static func run(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        final class Box: @unchecked Sendable {
            let body: @Sendable (Int) -> Void
            let index: Int
            init(_ body: @escaping @Sendable (Int) -> Void, _ index: Int) { self.body = body; self.index = index }
        }
        var threads: [pthread_t] = []
        for index in 0..<count {
            var thread = pthread_t()
            let box = Unmanaged.passRetained(Box(body, index)).toOpaque()
            let created = pthread_create(&thread, nil, { raw in
                let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
                box.body(box.index)
                return nil
            }, box)
            precondition(created == 0, "pthread_create failed: \(created)")
            threads.append(thread)
        }
        for thread in threads { pthread_join(thread, nil) }
    }

    /// Results of `body(index)` for each of `count` threads, in index order.
    static func map<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) -> T) -> [T] {
        let results = ResultSlots<T>(count)
        run(count) { index in results.set(index, body(index)) }
        return results.values
    }
}

/// One slot per thread, each written by exactly one thread before `Threads.run` joins them all.
/// Raw storage rather than an array property, so that threads writing different slots never touch shared state.
final class ResultSlots<T>: @unchecked Sendable {
    private let slots: UnsafeMutableBufferPointer<T?>
    init(_ count: Int) { slots = .allocate(capacity: count); slots.initialize(repeating: nil) }
    deinit { slots.deinitialize(); slots.deallocate() }
    func set(_ index: Int, _ value: T) { slots[index] = value }
    var values: [T] { slots.map { $0! } }
}
