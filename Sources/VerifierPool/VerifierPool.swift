import Basics
public import Batching
import Dispatch
import Foundation
public import HTTP
public import Observability
import Synchronization

/// Worker threads that run what an event loop must not: signature checks, token signing, state-store calls.
///
/// The queue is bounded. When it is full a job is refused at once, and the caller answers UNAVAILABLE: shedding
/// load keeps latency bounded for the requests that are admitted, where an unbounded queue would only delay every
/// answer past its caller's patience. A job whose deadline passed while it waited is expired without running, so
/// no crypto is spent on an answer nobody is waiting for.
///
/// A job that may run inline is run at once on the submitting event loop when the pool is idle (nothing queued,
/// a thread waiting) and the loop turn it was submitted in has not yet run one inline (`LoopTurn`): a lone request
/// then costs no thread wake-up at all, where the pool would wake a thread for it and wake the loop with its answer.
///
/// Each thread owns a `Batch` and hands it to every job it runs: the answers and store writes of those jobs join
/// it, and the thread flushes it after a few jobs, before a job that may block, and before it waits for work.
public final class VerifierPool: Sendable {
    /// One unit of work.
    public struct Job: Sendable {
        /// CLOCK_MONOTONIC nanoseconds after which the job is not worth running.
        public var deadlineNanos: UInt64?
        /// Runs the work, on a pool thread, with the thread's batch (nil when it runs inline on an event loop,
        /// where nothing is held back).
        public var run: @Sendable (Batch?) -> Void
        /// Called instead of `run` when the deadline passed before a thread took the job.
        public var expire: @Sendable (Batch?) -> Void
        /// The job is short and never waits (no calls to remote services, no state-store commit), so it may run
        /// on the submitting event loop when the pool is idle.
        public var mayRunInline: Bool
        /// The job may wait long (a call to a remote service): answers and store writes that this thread holds back
        /// are sent first. Jobs that wait at most for a store commit are not such jobs.
        public var mayBlock: Bool
        /// CLOCK_MONOTONIC nanoseconds when the job was queued (set by `submit`).
        var queuedAtNanos: UInt64 = 0

        public init(
            deadlineNanos: UInt64?, mayRunInline: Bool = false, mayBlock: Bool = false,
            run: @escaping @Sendable (Batch?) -> Void, expire: @escaping @Sendable (Batch?) -> Void
        ) {
            self.deadlineNanos = deadlineNanos
            self.mayRunInline = mayRunInline
            self.mayBlock = mayBlock
            self.run = run
            self.expire = expire
        }
    }

    /// Answers and state-store writes are held back only while at least this many jobs per thread wait in the
    /// queue. Holding saves a loop wake-up per answer and a commit per write, which the throughput of a saturated
    /// server needs (an ES256 assertion costs about as much as a commit); but each held answer waits for the jobs
    /// that pass it. Behind a deep queue that is small beside the wait every request has anyway; behind a shallow
    /// one it is added to requests that would hardly wait otherwise. At half the saturating rate of RS256
    /// assertions, holding whenever anything was queued, answers waited 0.34–0.54 ms at p99 for their loop, and
    /// 0.31–0.33 ms with this rule (traced per request); closed loops kept their
    /// throughput.
    static let backlogPerThreadForHolds = 4
    /// While the backlog is deep, an answer waits at most this many of its thread's jobs for its loop's wake-up.
    static let jobsPerWake = 3
    /// While the backlog is deep, a state-store write waits about this long (plus the job that passes it) for its
    /// commit: about ten assertions' worth of work, so that a batch holds that many, or one or two attestations';
    /// small beside the queueing delay of a saturated server.
    static let commitHoldNanoseconds: UInt64 = 1_000_000

    public let threadCount: Int
    public let capacity: Int
    /// How long queued jobs waited for a thread (jobs run inline wait for none and are not counted).
    public let queueWait = DurationHistogram()
    private let queue: JobQueue
    private let refused = Atomic<Int>(0)

    /// - Parameters:
    ///   - threads: worker threads; 0 means one per core.
    ///   - capacity: jobs that may wait; beyond it `submit` refuses.
    ///   - name: the threads' names are this and their index (at most 15 bytes in all are kept).
    public init(threads: Int, capacity: Int, name: String = "verifier") {
        let count = threads > 0 ? threads : ProcessInfo.processInfo.activeProcessorCount
        threadCount = count
        self.capacity = capacity
        queue = JobQueue(capacity: capacity)
        for index in 0..<count {
            let thread = Thread { [queue, queueWait] in
                // Named from inside: Foundation's `Thread.name` did not reach the kernel here.
                ThreadName.setCurrent("\(name)-\(index)")
                // Behind a deep backlog, answers wake their loops once per few jobs, and all at once before this
                // thread waits for work: at saturation a loop is not woken for every single answer. Likewise
                // state-store writes are committed once per few jobs (their answers follow the commit).
                let batch = Batch()
                while let job = queue.take(beforeWaiting: { batch.flush() }) {
                    // Held-back writes and answers never wait behind a job that may block (a call to a remote
                    // service).
                    if job.mayBlock { batch.flush() }
                    let now = MonotonicClock.nanoseconds()
                    queueWait.record(from: job.queuedAtNanos, to: now)
                    if let deadline = job.deadlineNanos, now > deadline {
                        job.expire(batch)
                    } else {
                        job.run(batch)
                    }
                    if VerifierPool.holdsBack(queued: queue.count, threads: count) {
                        batch.jobFinished(
                            now: MonotonicClock.nanoseconds(), maxWriteHoldNanoseconds: VerifierPool.commitHoldNanoseconds,
                            jobsPerWake: VerifierPool.jobsPerWake)
                    } else {
                        batch.flush()
                    }
                }
                batch.flush()
            }
            thread.start()
        }
    }

    /// Whether a thread that finished a job keeps its answers and writes held back, with `queued` jobs waiting
    /// for the pool's `threads`.
    static func holdsBack(queued: Int, threads: Int) -> Bool {
        queued >= threads * backlogPerThreadForHolds
    }

    /// Queues `job`, or runs it at once on the event loop whose `turn` submits it (see above; nil: never inline).
    /// Returns false, without queueing, when the queue is full or the pool is shut down.
    public func submit(_ job: Job, inlineOn turn: LoopTurn?) -> Bool {
        if job.mayRunInline, let turn, queue.isIdle, turn.claimInlineSlot() {
            if let deadline = job.deadlineNanos, MonotonicClock.nanoseconds() > deadline { job.expire(nil) } else { job.run(nil) }
            return true
        }
        var job = job
        job.queuedAtNanos = MonotonicClock.nanoseconds()
        let accepted = queue.put(job)
        if !accepted { refused.add(1, ordering: .relaxed) }
        return accepted
    }

    /// Jobs refused so far because the queue was full (or the pool shut down).
    public var refusedCount: Int { refused.load(ordering: .relaxed) }

    /// Jobs waiting for a thread right now.
    public var queuedCount: Int { queue.count }

    /// Lets the threads finish what is queued and exit; later submissions are refused.
    public func shutdown() {
        queue.close()
    }
}

/// A bounded FIFO with blocking take: the queue itself in a `Mutex`, and a semaphore that threads with nothing to
/// take sleep on. A `Mutex` alone cannot serve: it cannot sleep until another thread puts a job. The semaphore is
/// given once per sleeping thread that a put or a close must wake (`wakeUpsGiven`), and its count keeps a wake-up
/// given just before the thread went to sleep.
private final class JobQueue: Sendable {
    private struct State: ~Copyable {
        var jobs: [VerifierPool.Job?]
        var head = 0
        var stored = 0
        var closed = false
        /// Threads asleep in `take`, or about to be.
        var waiting = 0
        /// Wake-ups given to those threads that they have not taken yet.
        var wakeUpsGiven = 0

        /// Gives one more sleeping thread a wake-up, if one has none yet. Returns whether it did.
        mutating func wakeOne() -> Bool {
            guard waiting > wakeUpsGiven else { return false }
            wakeUpsGiven += 1
            return true
        }
    }

    private let state: Mutex<State>
    private let wakeUp = DispatchSemaphore(value: 0)

    init(capacity: Int) {
        state = Mutex(State(jobs: Array(repeating: nil, count: max(1, capacity))))
    }

    var count: Int { state.withLock { $0.stored } }

    /// Nothing queued and a thread waiting: a job submitted now would wait for nothing but a wake-up.
    var isIdle: Bool {
        state.withLock { !$0.closed && $0.stored == 0 && $0.waiting > $0.wakeUpsGiven }
    }

    func put(_ job: VerifierPool.Job) -> Bool {
        let (accepted, wakes): (Bool, Bool) = state.withLock { state in
            guard !state.closed, state.stored < state.jobs.count else { return (false, false) }
            state.jobs[(state.head + state.stored) % state.jobs.count] = job
            state.stored += 1
            return (true, state.wakeOne())
        }
        if wakes { wakeUp.signal() }
        return accepted
    }

    /// The next job, waiting for one; nil once the queue is closed and empty. Before it waits, it calls
    /// `beforeWaiting`, and looks again if that did anything.
    func take(beforeWaiting: () -> Bool) -> VerifierPool.Job? {
        while true {
            let next: Next = state.withLock { state in
                guard state.stored > 0 else { return state.closed ? .closed : .empty }
                let job = state.jobs[state.head]
                state.jobs[state.head] = nil
                state.head = (state.head + 1) % state.jobs.count
                state.stored -= 1
                return job.map(Next.job) ?? .empty
            }
            switch next {
            case .job(let job): return job
            case .closed: return nil
            case .empty: break
            }
            if beforeWaiting() { continue }
            // A job put (or a close) while `beforeWaiting` ran woke no one: look again before sleeping, or that job
            // waits for the next put's wake-up.
            let sleeps = state.withLock { state in
                guard state.stored == 0, !state.closed else { return false }
                state.waiting += 1
                return true
            }
            guard sleeps else { continue }
            wakeUp.wait()
            state.withLock { state in
                state.waiting -= 1
                state.wakeUpsGiven -= 1
            }
        }
    }

    private enum Next {
        case job(VerifierPool.Job)
        case empty, closed
    }

    func close() {
        let wakes = state.withLock { state in
            state.closed = true
            let sleepers = state.waiting - state.wakeUpsGiven
            state.wakeUpsGiven = state.waiting
            return sleepers
        }
        for _ in 0..<wakes { wakeUp.signal() }
    }
}
