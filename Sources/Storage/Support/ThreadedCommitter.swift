import Basics
import Glibc

/// Group commit on threads of its own, for a store whose commit is a network round trip (Redis): a write is queued
/// with a completion and its caller goes on; callers never commit, never touch a socket, never wait. Each of a few
/// committer threads (one per batch that may be in flight, each batch on a connection of its own) has its own lane:
/// it sleeps until writes are queued there, takes everything queued (up to the batch limit), commits it as one batch
/// and runs the batch's completions; then takes what was queued meanwhile. Under load the threads are seldom asleep:
/// each batch holds every write queued while the last one was on the wire, and a submitter's enqueue costs a lock
/// and no wake-up. A thread that holds its writes back (`DeferredCommits`) queues them without waking anyone until
/// it flushes, so a committer wakes once for a verifier's few jobs' writes rather than once per write.
///
/// Writes in one lane are committed in the order they were queued, one batch after the other; the caller picks the
/// lane (for Redis, by the attested key a write touches, so that a client's counter n is never stored after its
/// n+1 when both were handed over in that order). Two batches in flight on two connections would not keep that
/// order: redis-server interleaves the commands it reads from its clients.
///
/// `GroupCommitter` instead has a submitting thread lead: with Redis that parked up to two verifier threads in
/// `read()` waiting for redis-server, which is why verifier threads were doubled with Redis. SQLite keeps it (its
/// commit is CPU and fsync on the caller's core, and one writer at a time).
///
/// Completions run on the committer thread, outside the lock: handing them back to a verifier would cost one more
/// queue and wake-up per batch for work (signing a token, answering) that some thread of the process must do
/// anyway, and would delay every answer behind the verifiers' queue. They may submit again; a completion that calls
/// `submitAndWait` commits that one write on its own thread rather than waiting for a committer (there may be none
/// free: it is one).
///
/// A write that waited in the queue longer than `maxQueueWait` (the store's command timeout) is failed without being
/// sent: while the server hangs, each batch takes a whole timeout to fail, and without this a long queue would wait
/// for many of them; with it every write is answered within about two timeouts of being handed over.
///
/// Writes in different lanes may be stored in another order than they were handed over, as concurrent requests to
/// several nodes may be anyway; each write is atomic alone. A batch either commits whole or fails whole (the
/// `commit` function's choice per write).
final class ThreadedCommitter<Write: Sendable, Outcome: Sendable>: Sendable, HeldWrites {
    typealias Completion = @Sendable (Result<Outcome, StoreError>) -> Void
    /// Commits a batch in order and answers one outcome per write; runs on a committer thread.
    typealias Commit = @Sendable ([Write]) -> [Result<Outcome, StoreError>]

    private struct Queued: Sendable {
        let write: Write
        let completion: Completion
        /// CLOCK_MONOTONIC nanoseconds when it was queued.
        let queuedAt: UInt64
    }

    /// One committer thread and the writes queued for it.
    ///
    /// `@unchecked Sendable`: every mutable property is guarded by `lock`.
    private final class Lane: @unchecked Sendable {
        let lock = ConditionLock()
        // Guarded by `lock`.
        var pending: [Queued] = []
        /// The thread sleeps, waiting for writes.
        var idle = false
        /// A signal was sent that the thread has not woken for yet: a write queued meanwhile needs no other.
        var signalled = false
        var stopped = false
        var thread: WorkerThread?
        var closedError: StoreError

        init(closedError: StoreError) {
            self.closedError = closedError
        }

        /// Wakes the thread for the queued writes, unless it is awake or on its way. Call with the lock held.
        func wake() {
            guard idle, !signalled, !pending.isEmpty else { return }
            signalled = true
            lock.signal()
        }
    }

    private let lanes: [Lane]
    /// The lane of a write: writes that must be stored in the order they were queued go to the same lane.
    private let laneOf: @Sendable (Write) -> Int
    private let maxBatchSize: Int
    private let maxQueueNanoseconds: UInt64
    private let commit: Commit
    private let afterBatch: (@Sendable () -> Void)?

    /// Starts `threads` committer threads named `name-0`, `name-1`, …, one per lane; `lane` picks a write's lane (any
    /// integer; taken modulo the lane count).
    ///
    /// `afterBatch` runs on the committer thread after each batch's completions: the server flushes there the answers
    /// those completions posted to its event loops, so that a loop is woken once per batch rather than once per answer.
    init(threads count: Int, name: String, maxBatchSize: Int, maxQueueWait: Duration, closedError: StoreError,
         afterBatch: (@Sendable () -> Void)? = nil, lane: @escaping @Sendable (Write) -> Int, commit: @escaping Commit) {
        self.afterBatch = afterBatch
        lanes = (0..<max(1, count)).map { _ in Lane(closedError: closedError) }
        laneOf = lane
        self.maxBatchSize = max(1, maxBatchSize)
        let wait = maxQueueWait.components
        maxQueueNanoseconds = UInt64(max(0, wait.seconds)) * 1_000_000_000 + UInt64(max(0, wait.attoseconds / 1_000_000_000))
        self.commit = commit
        for (index, lane) in lanes.enumerated() {
            do throws(StoreError) {
                let thread = try WorkerThread(name: "\(name)-\(index)") { [self] in run(lane) }
                lane.lock.withLock { lane.thread = thread }
            } catch {
                // Without its thread nothing in this lane would ever be committed: refuse its writes (fail closed).
                lane.lock.withLock {
                    lane.stopped = true
                    lane.closedError = error
                }
            }
        }
    }

    /// Queues `write` and returns at once; `completion` gets its outcome on a committer thread. A thread that holds
    /// its writes back (`DeferredCommits`) and has room for this one queues it without waking a committer.
    func submit(_ write: Write, completion: @escaping Completion) {
        submit(write, mayHold: true, completion: completion)
    }

    private func submit(_ write: Write, mayHold: Bool, completion: @escaping Completion) {
        let deferral = mayHold ? DeferredCommits.current : nil
        let holds = deferral?.hasRoom ?? false
        let queued = Queued(write: write, completion: completion, queuedAt: MonotonicClock.nanoseconds())
        let lane = lanes[Int(UInt(bitPattern: laneOf(write)) % UInt(lanes.count))]
        let refused: StoreError? = lane.lock.withLock {
            guard !lane.stopped else { return lane.closedError }
            lane.pending.append(queued)
            if !holds { lane.wake() }
            return nil
        }
        if let refused {
            completion(.failure(refused))
        } else if holds {
            deferral?.hold(self)
        } else if let deferral {
            // The committers take this thread's held writes (in every lane) now, or once their batch in flight is done.
            deferral.commits(self)
            commitHeld()
        }
    }

    func commitHeld() {
        for lane in lanes { lane.lock.withLock { lane.wake() } }
    }

    /// Queues `write` and waits for its outcome: for callers that have nothing else to do meanwhile (the sweeper,
    /// an administrator's revocation). The write is never held back. On a committer thread (a completion that
    /// calls this) the write is committed on that thread at once.
    func submitAndWait(_ write: Write) throws(StoreError) -> Outcome {
        if CommitterThreadMark.isSet(on: self) {
            guard let outcome = commit([write]).first else { throw StoreError("store: a write got no outcome") }
            return try outcome.get()
        }
        let answer = Answer<Outcome>()
        submit(write, mayHold: false) { outcome in answer.set(outcome) }
        return try answer.wait().get()
    }

    /// Refuses new writes; those already queued are still committed (or fail) and answered; then the threads exit
    /// and are joined (unless this is called on one of them: it would wait for itself).
    func stop() {
        let running: [WorkerThread] = lanes.compactMap { lane in
            lane.lock.withLock {
                lane.stopped = true
                lane.lock.broadcast()
                defer { lane.thread = nil }
                return lane.thread
            }
        }
        guard !CommitterThreadMark.isSet(on: self) else { return }
        for thread in running { thread.join() }
    }

    /// A committer thread's life: batches until stopped with nothing queued.
    private func run(_ lane: Lane) {
        CommitterThreadMark.set(on: self)
        while let batch = nextBatch(lane) {
            commitAndAnswer(batch)
            afterBatch?()
        }
    }

    /// Sleeps until writes are queued in `lane` and takes up to a batch of them; nil once stopped and drained.
    private func nextBatch(_ lane: Lane) -> [Queued]? {
        lane.lock.withLock {
            while lane.pending.isEmpty && !lane.stopped {
                lane.idle = true
                lane.lock.wait()
                lane.idle = false
                lane.signalled = false
            }
            if lane.pending.isEmpty { return nil }
            if lane.pending.count <= maxBatchSize {
                defer { lane.pending = [] }
                return lane.pending
            }
            defer { lane.pending.removeFirst(maxBatchSize) }
            return Array(lane.pending.prefix(maxBatchSize))
        }
    }

    private func commitAndAnswer(_ batch: [Queued]) {
        let now = MonotonicClock.nanoseconds()
        let live = batch.filter { now &- $0.queuedAt <= maxQueueNanoseconds }
        if live.count < batch.count {
            let waited = StoreError("store: a write waited longer than \(maxQueueNanoseconds / 1_000_000) ms to be sent; not sent")
            for queued in batch where now &- queued.queuedAt > maxQueueNanoseconds { queued.completion(.failure(waited)) }
        }
        guard !live.isEmpty else { return }
        let outcomes = commit(live.map { $0.write })
        for (index, queued) in live.enumerated() {
            queued.completion(index < outcomes.count ? outcomes[index] : .failure(StoreError("store: a write got no outcome")))
        }
    }
}

/// Which committer, if any, the calling thread commits for: a thread-specific slot holding its (unretained) address.
private enum CommitterThreadMark {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
        return key
    }()

    static func set(on committer: AnyObject) {
        _ = pthread_setspecific(key, UnsafeRawPointer(Unmanaged.passUnretained(committer).toOpaque()))
    }

    static func isSet(on committer: AnyObject) -> Bool {
        pthread_getspecific(key) == UnsafeMutableRawPointer(Unmanaged.passUnretained(committer).toOpaque())
    }
}
