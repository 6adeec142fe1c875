import Basics
import Glibc

/// Lets a verifier thread that runs many exchanges in a row commit their writes together.
///
/// A write handed to the store by a thread that has more exchanges queued would, committed at once, be a batch of
/// one or two: the next write arrives only after the next signature check, which takes as long as the commit. So a
/// thread that enables this holds its writes back (they wait in their store's queue, where any other committing
/// thread takes them too) until it calls `flush()`: it must do so before it blocks and before a job that may block,
/// and `jobFinished` flushes once the oldest held write has waited a little while (a few assertions' worth), which
/// bounds the delay. A thread about to wait for work flushes first,
/// so at low load nothing is held back at all, and under load a batch holds a few jobs' worth of writes.
public final class DeferredCommits {
    /// Stores whose queued writes this thread must see committed, each once.
    private var held: [any HeldWrites] = []
    /// Writes held back since the last flush.
    private var writesHeld = 0
    /// CLOCK_MONOTONIC nanoseconds when the oldest held-back write was held.
    private var heldSince: UInt64 = 0
    /// Writes held back at most before the next one is committed at once.
    static let maxWritesHeld = 32

    private init() {}

    /// Turns holding on for the calling thread, for the rest of its life; returns its batch.
    public static func enableOnCurrentThread() -> DeferredCommits {
        if let batch = current { return batch }
        let batch = DeferredCommits()
        _ = pthread_setspecific(key, UnsafeRawPointer(Unmanaged.passRetained(batch).toOpaque()))
        return batch
    }

    /// Commits every held-back write (and runs their completions, and any other writes queued with them). Returns
    /// whether there was any.
    @discardableResult
    public func flush() -> Bool {
        guard !held.isEmpty else { return false }
        // A completion may hold new writes: take the list first.
        let stores = held
        held.removeAll(keepingCapacity: true)
        writesHeld = 0
        for store in stores { store.commitHeld() }
        return true
    }

    /// Call after each job: flushes once the oldest held-back write has waited `maxHoldNanoseconds`.
    public func jobFinished(maxHoldNanoseconds: UInt64) {
        guard !held.isEmpty, MonotonicClock.nanoseconds() - heldSince >= maxHoldNanoseconds else { return }
        flush()
    }

    /// Whether one more write may be held back now.
    var hasRoom: Bool { writesHeld < Self.maxWritesHeld }

    /// Records a write held back in `store`'s queue.
    func hold(_ store: any HeldWrites) {
        if writesHeld == 0 { heldSince = MonotonicClock.nanoseconds() }
        writesHeld += 1
        if !held.contains(where: { $0 === store }) { held.append(store) }
    }

    /// Records that this thread is committing `store`'s queue now, held writes included.
    func commits(_ store: any HeldWrites) {
        held.removeAll { $0 === store }
        if held.isEmpty { writesHeld = 0 }
    }

    /// The calling thread's batch, if it enabled one.
    static var current: DeferredCommits? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<DeferredCommits>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// The thread-specific slot of each thread's batch; a thread's batch is flushed and released when it exits.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, { pointer in
            // A thread that exits holding writes commits them first.
            guard let pointer else { return }
            Unmanaged<DeferredCommits>.fromOpaque(pointer).takeRetainedValue().flush()
        }) == 0, "pthread_key_create failed")
        return key
    }()
}

/// A store queue that can hold writes back for `DeferredCommits`.
protocol HeldWrites: AnyObject {
    /// Commits what is queued, unless another thread is committing (it takes the queue when done).
    func commitHeld()
}
