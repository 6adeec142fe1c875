/// What one thread holds back while it works through jobs in a row: the wake-ups of event loops it posted answers
/// to, and the store writes it queued. Both are sent together when the thread calls `flush()`.
///
/// Each answer posted to a sleeping loop would wake it to write that one answer, and each write committed at once
/// would be a batch of one or two: at saturation that is a context switch per request and a commit per write, on
/// cores that are busy with the next requests. So a thread that runs many jobs in a row (a verifier, a store's
/// committer) owns one batch and hands it to every job it runs; the job passes it to each answer it sends and each
/// write it hands to the store, so every call that joins the batch says so. The owner flushes it before it waits
/// for work and after every few jobs (`jobFinished`), which bounds how long anything is held back.
///
/// A batch belongs to the thread that made it: it is not `Sendable`, so it can be passed down a call but never
/// kept by another thread.
public final class Batch {
    /// Writes held back at most before the next one is committed at once.
    public static let maxWritesHeld = 32

    /// Whether writes handed over with this batch may wait for its flush (a committer thread's batch holds only
    /// wake-ups: a write it held would wait for a thread that is busy answering).
    public let holdsWrites: Bool
    /// Loops whose wake-up is held back, each once.
    private var loops: [any WakeTarget] = []
    /// Jobs finished since the oldest held-back wake-up.
    private var jobsSinceWakeHeld = 0
    /// Stores whose queued writes this thread must see committed, each once.
    private var stores: [any HeldWrites] = []
    /// Writes held back since the last flush.
    private var writesHeld = 0
    /// CLOCK_MONOTONIC nanoseconds when the oldest held-back write was held.
    private var writesHeldSince: UInt64 = 0

    /// A batch for the calling thread; `holdingWrites: false` holds wake-ups only.
    public init(holdingWrites: Bool = true) {
        holdsWrites = holdingWrites
    }

    /// Commits every held-back write (running their completions, which may join answers to this batch), then
    /// writes every held-back wake-up. Returns whether anything was held.
    @discardableResult
    public func flush() -> Bool {
        let committed = flushWrites()
        let woke = flushWakes()
        return committed || woke
    }

    /// Call after each job while holding is worth it: commits the held writes once the oldest has waited
    /// `maxWriteHoldNanoseconds` (`now` is read only then), and wakes the held loops once they have waited across
    /// `jobsPerWake` jobs.
    public func jobFinished(now: @autoclosure () -> UInt64, maxWriteHoldNanoseconds: UInt64, jobsPerWake: Int) {
        if !stores.isEmpty, now() - writesHeldSince >= maxWriteHoldNanoseconds { flushWrites() }
        guard !loops.isEmpty else { return }
        jobsSinceWakeHeld += 1
        if jobsSinceWakeHeld >= jobsPerWake { flushWakes() }
    }

    /// Commits every held-back write (and runs their completions, and any other writes queued with them).
    @discardableResult
    private func flushWrites() -> Bool {
        guard !stores.isEmpty else { return false }
        // A completion may hold new writes: take the list first.
        let held = stores
        stores.removeAll(keepingCapacity: true)
        writesHeld = 0
        for store in held { store.commitHeld(joining: self) }
        return true
    }

    /// Writes every held-back wake-up.
    @discardableResult
    private func flushWakes() -> Bool {
        guard !loops.isEmpty else { return false }
        for loop in loops { loop.wake() }
        loops.removeAll(keepingCapacity: true)
        jobsSinceWakeHeld = 0
        return true
    }

    // MARK: For the event loops and the stores

    /// Holds back `loop`'s wake-up (already marked pending on the loop, so no other poster writes it meanwhile).
    package func holdWake(of loop: any WakeTarget) {
        if !loops.contains(where: { $0 === loop }) { loops.append(loop) }
    }

    /// Whether one more write may be held back now.
    package var hasRoomForWrite: Bool { holdsWrites && writesHeld < Self.maxWritesHeld }

    /// Records a write held back in `store`'s queue; `now` (CLOCK_MONOTONIC nanoseconds) is read for the first.
    package func holdWrite(in store: any HeldWrites, now: @autoclosure () -> UInt64) {
        if writesHeld == 0 { writesHeldSince = now() }
        writesHeld += 1
        if !stores.contains(where: { $0 === store }) { stores.append(store) }
    }

    /// Records that this thread is committing `store`'s queue now, its held writes included.
    package func commits(_ store: any HeldWrites) {
        stores.removeAll { $0 === store }
        if stores.isEmpty { writesHeld = 0 }
    }
}

/// Confined to the thread that made it: passed down calls, never shared.
@available(*, unavailable)
extension Batch: Sendable {}

/// An event loop whose eventfd wake-up a batch can hold back.
package protocol WakeTarget: AnyObject {
    /// Writes the wake-up that was held back.
    func wake()
}

/// A store queue whose writes a batch can hold back.
package protocol HeldWrites: AnyObject {
    /// Commits what is queued, unless another thread is committing (it takes the queue when done). Completions
    /// run here join their answers to `batch`.
    func commitHeld(joining batch: Batch)
}
