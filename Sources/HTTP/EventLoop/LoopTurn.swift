import Glibc

/// What a handler running on an event loop thread may ask about the loop turn it runs in.
///
/// Handing work to another thread and its answer back costs two thread wake-ups. When the other threads are idle
/// anyway, running short work on the loop itself is cheaper and answers sooner. Once per turn at most: the
/// requests that came in the same read as the first still go to other threads, so a burst is spread over the cores
/// rather than run one after another on one loop.
public enum LoopTurn {
    /// True at most once per loop turn, on an event loop thread only: the caller may run one piece of work inline
    /// now, before the loop reads further. Elsewhere (pool threads, loops that tests drive without their thread)
    /// always false.
    public static func claimInlineSlot() -> Bool {
        guard let pointer = pthread_getspecific(key) else { return false }
        return Unmanaged<EventLoop>.fromOpaque(pointer).takeUnretainedValue().claimInlineSlot()
    }

    /// Makes `loop` the calling thread's loop (nil: none). The loop outlives its thread's use of it.
    static func setCurrent(_ loop: EventLoop?) {
        _ = pthread_setspecific(key, loop.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) })
    }

    /// The thread-specific slot that holds the calling thread's loop.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
        return key
    }()
}
