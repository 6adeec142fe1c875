import Glibc

/// Lets a worker thread that answers many requests in a row wake their event loops once per few answers.
///
/// Each answer posted to a sleeping loop would wake it to write that one answer, and at saturation that is a
/// context switch per request on cores that are busy with the next ones. A thread that enables batching holds back
/// those wake-ups (the answers are queued on the loop at once; only the eventfd write waits) until it calls
/// `flush()`: it must do so before it blocks and after every few jobs, which bounds the delay by those jobs' time.
/// A thread that is about to wait for work flushes first, so at low load nothing is held back at all.
public final class DeferredWakes {
    /// Loops whose wake-up is held back, each once.
    private var loops: [EventLoop] = []
    /// Jobs finished since the oldest held-back wake-up.
    private var jobsHeld = 0

    private init() {}

    /// Turns batching on for the calling thread, for the rest of its life; returns its batch.
    public static func enableOnCurrentThread() -> DeferredWakes {
        if let batch = current { return batch }
        let batch = DeferredWakes()
        _ = pthread_setspecific(key, UnsafeRawPointer(Unmanaged.passRetained(batch).toOpaque()))
        return batch
    }

    /// Writes every held-back wake-up. Returns whether there was any.
    @discardableResult
    public func flush() -> Bool {
        guard !loops.isEmpty else { return false }
        for loop in loops { loop.wake() }
        loops.removeAll(keepingCapacity: true)
        jobsHeld = 0
        return true
    }

    /// Call after each job: flushes once wake-ups have been held back across `limit` jobs.
    public func jobFinished(limit: Int) {
        guard !loops.isEmpty else { return }
        jobsHeld += 1
        if jobsHeld >= limit { flush() }
    }

    /// Holds back `loop`'s wake-up (already marked pending on the loop, so no other poster writes it meanwhile).
    func hold(_ loop: EventLoop) {
        if !loops.contains(where: { $0 === loop }) { loops.append(loop) }
    }

    /// The calling thread's batch, if it enabled one.
    static var current: DeferredWakes? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<DeferredWakes>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// The thread-specific slot of each thread's batch; a thread's batch is flushed and released when it exits.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, { pointer in
            // A thread that exits holding wake-ups delivers them first.
            guard let pointer else { return }
            Unmanaged<DeferredWakes>.fromOpaque(pointer).takeRetainedValue().flush()
        }) == 0, "pthread_key_create failed")
        return key
    }()
}
