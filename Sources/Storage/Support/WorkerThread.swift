import Glibc

/// A plain pthread running one closure, joined by its owner on shutdown. The store's background work (the SQLite
/// writer and sweeper) blocks for long stretches, which would starve a cooperative Swift executor.
final class WorkerThread: Sendable {
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    private let thread: pthread_t

    init(_ run: @escaping @Sendable () -> Void) throws(StoreError) {
        var thread = pthread_t()
        let body = Unmanaged.passRetained(Body(run)).toOpaque()
        let created = pthread_create(&thread, nil, { argument in
            Unmanaged<Body>.fromOpaque(argument!).takeRetainedValue().run()
            return nil
        }, body)
        guard created == 0 else {
            Unmanaged<Body>.fromOpaque(body).release()
            throw StoreError("cannot start a store thread: error \(created)")
        }
        self.thread = thread
    }

    /// Waits for the closure to return.
    func join() {
        pthread_join(thread, nil)
    }
}
