import Basics
import Batching
import Dispatch
import Glibc
import Synchronization

/// Group commit on threads of its own, for a store whose commit is a network round trip (Redis): a write is queued
/// with a completion and its caller goes on; callers never commit, never touch a socket, never wait. Each of a few
/// committer threads (one per batch that may be in flight, each batch on a connection of its own) has its own lane:
/// it sleeps until writes are queued there, takes everything queued (up to the batch limit), commits it as one batch
/// and runs the batch's completions; then takes what was queued meanwhile. Under load the threads are seldom asleep:
/// each batch holds every write queued while the last one was on the wire, and a submitter's enqueue costs a lock
/// and no wake-up. A write handed over with a batch that holds writes is queued without waking anyone until that
/// batch flushes, so a committer wakes once for a verifier's few jobs' writes rather than once per write.
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
/// anyway, and would delay every answer behind the verifiers' queue. Each committer thread owns a batch that
/// holds wake-ups only: the completions join their answers to it, and it is flushed after each batch of writes, so
/// that an event loop is woken once per batch rather than once per answer. They may submit again; a completion that calls
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
    typealias Completion = StoreCompletion<Outcome>
    /// Commits a batch in order and answers one outcome per write; runs on a committer thread.
    typealias Commit = @Sendable ([Write]) -> [Result<Outcome, StoreError>]

    private struct Queued: Sendable {
        let write: Write
        let completion: Completion
        /// CLOCK_MONOTONIC nanoseconds when it was queued.
        let queuedAt: UInt64
    }

    /// One committer thread and the writes queued for it.
    private final class Lane: Sendable {
        struct State: ~Copyable {
            var pending: [Queued] = []
            /// The thread sleeps, or is about to, waiting for writes.
            var idle = false
            /// A wake-up was given that the thread has not woken for yet: a write queued meanwhile needs no other.
            var signalled = false
            var stopped = false
            var thread: WorkerThread?
            var closedError: StoreError
        }

        let state: Mutex<State>
        /// The thread sleeps on it. A semaphore, not a `Mutex`: a mutex cannot sleep until another thread acts, and
        /// the semaphore's count keeps a wake-up given just before the thread went to sleep. Given at most once per
        /// sleep (`signalled`).
        private let wakeUp = DispatchSemaphore(value: 0)

        init(closedError: StoreError) {
            state = Mutex(State(closedError: closedError))
        }

        /// Wakes the thread for the queued writes, unless it is awake or on its way. Call inside `state.withLock`.
        func wake(_ state: inout State) {
            guard state.idle, !state.signalled, !state.pending.isEmpty || state.stopped else { return }
            state.signalled = true
            wakeUp.signal()
        }

        /// Sleeps until `wake` is called (or was, since the thread said it was idle).
        func sleep() {
            wakeUp.wait()
        }
    }

    private let lanes: [Lane]
    /// The lane of a write: writes that must be stored in the order they were queued go to the same lane.
    private let laneOf: @Sendable (Write) -> Int
    private let maxBatchSize: Int
    private let maxQueueNanoseconds: UInt64
    private let commit: Commit

    /// Starts `threads` committer threads named `name-0`, `name-1`, …, one per lane; `lane` picks a write's lane (any
    /// integer; taken modulo the lane count).
    init(threads count: Int, name: String, maxBatchSize: Int, maxQueueWait: Duration, closedError: StoreError,
         lane: @escaping @Sendable (Write) -> Int, commit: @escaping Commit) {
        lanes = (0..<max(1, count)).map { _ in Lane(closedError: closedError) }
        laneOf = lane
        self.maxBatchSize = max(1, maxBatchSize)
        let wait = maxQueueWait.components
        maxQueueNanoseconds = UInt64(max(0, wait.seconds)) * 1_000_000_000 + UInt64(max(0, wait.attoseconds / 1_000_000_000))
        self.commit = commit
        for (index, lane) in lanes.enumerated() {
            do throws(StoreError) {
                let thread = try WorkerThread(name: "\(name)-\(index)") { [self] in run(lane) }
                lane.state.withLock { $0.thread = thread }
            } catch {
                // Without its thread nothing in this lane would ever be committed: refuse its writes (fail closed).
                lane.state.withLock { state in
                    state.stopped = true
                    state.closedError = error
                }
            }
        }
    }

    /// Queues `write` and returns at once; `completion` gets its outcome on a committer thread. When `batch` holds
    /// writes and has room for this one, the write is queued without waking a committer until `batch` flushes.
    func submit(_ write: Write, joining batch: Batch?, completion: @escaping Completion) {
        let holds = batch?.hasRoomForWrite ?? false
        let queued = Queued(write: write, completion: completion, queuedAt: MonotonicClock.nanoseconds())
        let lane = lanes[Int(UInt(bitPattern: laneOf(write)) % UInt(lanes.count))]
        let refused: StoreError? = lane.state.withLock { state in
            guard !state.stopped else { return state.closedError }
            state.pending.append(queued)
            if !holds { lane.wake(&state) }
            return nil
        }
        if let refused {
            completion(.failure(refused), batch)
        } else if holds {
            batch?.holdWrite(in: self, now: queued.queuedAt)
        } else if let batch {
            // The committers take this batch's held writes (in every lane) now, or once their batch in flight is done.
            batch.commits(self)
            wakeCommitters()
        }
    }

    func commitHeld(joining batch: Batch) {
        wakeCommitters()
    }

    /// Wakes every lane's committer that sleeps with writes queued.
    private func wakeCommitters() {
        for lane in lanes { lane.state.withLock { lane.wake(&$0) } }
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
        submit(write, joining: nil) { outcome, _ in answer.set(outcome) }
        return try answer.wait().get()
    }

    /// Refuses new writes; those already queued are still committed (or fail) and answered; then the threads exit
    /// and are joined (unless this is called on one of them: it would wait for itself).
    func stop() {
        let running: [WorkerThread] = lanes.compactMap { lane in
            lane.state.withLock { state in
                state.stopped = true
                lane.wake(&state)
                defer { state.thread = nil }
                return state.thread
            }
        }
        guard !CommitterThreadMark.isSet(on: self) else { return }
        for thread in running { thread.join() }
    }

    /// A committer thread's life: batches until stopped with nothing queued. The answers its completions send
    /// join the thread's batch, flushed after each batch of writes.
    private func run(_ lane: Lane) {
        CommitterThreadMark.set(on: self)
        let answers = Batch(holdingWrites: false)
        while let writes = nextBatch(lane) {
            commitAndAnswer(writes, joining: answers)
            answers.flush()
        }
    }

    /// Sleeps until writes are queued in `lane` and takes up to a batch of them; nil once stopped and drained.
    private func nextBatch(_ lane: Lane) -> [Queued]? {
        while true {
            let taken: [Queued]?? = lane.state.withLock { state in
                if state.pending.isEmpty {
                    if state.stopped { return .some(nil) }
                    state.idle = true
                    return nil
                }
                if state.pending.count <= maxBatchSize {
                    defer { state.pending = [] }
                    return state.pending
                }
                defer { state.pending.removeFirst(maxBatchSize) }
                return Array(state.pending.prefix(maxBatchSize))
            }
            if let taken { return taken }
            lane.sleep()
            lane.state.withLock { state in
                state.idle = false
                state.signalled = false
            }
        }
    }

    private func commitAndAnswer(_ batch: [Queued], joining answers: Batch) {
        let now = MonotonicClock.nanoseconds()
        let live = batch.filter { now &- $0.queuedAt <= maxQueueNanoseconds }
        if live.count < batch.count {
            let waited = StoreError("store: a write waited longer than \(maxQueueNanoseconds / 1_000_000) ms to be sent; not sent")
            for queued in batch where now &- queued.queuedAt > maxQueueNanoseconds { queued.completion(.failure(waited), answers) }
        }
        guard !live.isEmpty else { return }
        let outcomes = commit(live.map { $0.write })
        for (index, queued) in live.enumerated() {
            queued.completion(index < outcomes.count ? outcomes[index] : .failure(StoreError("store: a write got no outcome")), answers)
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
