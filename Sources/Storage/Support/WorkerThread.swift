import Glibc
import Observability

/// A plain pthread running one closure, joined by its owner on shutdown. The store's background work (the SQLite
/// writer and sweeper) blocks for long stretches, which would starve a cooperative Swift executor.
final class WorkerThread: Sendable {
    private final class Body {
        let name: String?
        let run: @Sendable () -> Void
        init(_ name: String?, _ run: @escaping @Sendable () -> Void) {
            self.name = name
            self.run = run
        }
    }

    private let thread: pthread_t

    /// - Parameter name: the thread's name, as `top -H` and debuggers show it (at most 15 bytes are kept).
    init(name: String? = nil, _ run: @escaping @Sendable () -> Void) throws(StoreError) {
        var thread = pthread_t()
        let body = Unmanaged.passRetained(Body(name, run)).toOpaque()
        let created = pthread_create(&thread, nil, { argument in
            let body = Unmanaged<Body>.fromOpaque(argument!).takeRetainedValue()
            if let name = body.name { ThreadName.setCurrent(name) }
            body.run()
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
