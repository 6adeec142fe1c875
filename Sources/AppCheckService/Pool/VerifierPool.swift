import Foundation
import HTTP
import Observability
import Storage
import Synchronization

/// Worker threads that run what an event loop must not: signature checks, token signing, state-store calls.
///
/// The queue is bounded. When it is full a job is refused at once, and the caller answers UNAVAILABLE: shedding
/// load keeps latency bounded for the requests that are admitted, where an unbounded queue would only delay every
/// answer past its caller's patience. A job whose deadline passed while it waited is expired without running, so
/// no crypto is spent on an answer nobody is waiting for.
///
/// A job that may run inline is run at once on the submitting event loop when the pool is idle (nothing queued,
/// a thread waiting) and the loop has not yet run one inline in its current turn (`LoopTurn`): a lone request then
/// costs no thread wake-up at all, where the pool would wake a thread for it and wake the loop with its answer.
public final class VerifierPool: Sendable {
    /// One unit of work.
    public struct Job: Sendable {
        /// CLOCK_MONOTONIC nanoseconds after which the job is not worth running.
        public var deadlineNanos: UInt64?
        /// Runs the work, on a pool thread.
        public var run: @Sendable () -> Void
        /// Called instead of `run` when the deadline passed before a thread took the job.
        public var expire: @Sendable () -> Void
        /// The job is short and never waits (no calls to remote services, no state-store commit), so it may run
        /// on the submitting event loop when the pool is idle.
        public var mayRunInline: Bool
        /// The job may wait long (a call to a remote service): answers and store writes that this thread holds back
        /// are sent first. Jobs that wait at most for a store commit are not such jobs.
        public var mayBlock: Bool
        /// CLOCK_MONOTONIC nanoseconds when the job was queued (set by `submit`).
        var queuedAtNanos: UInt64 = 0

        public init(
            deadlineNanos: UInt64?, mayRunInline: Bool = false, mayBlock: Bool = false, run: @escaping @Sendable () -> Void,
            expire: @escaping @Sendable () -> Void
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
    let queueWait = DurationHistogram()
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
                // thread waits for work: at saturation a loop is not woken for every single answer.
                let wakes = DeferredWakes.enableOnCurrentThread()
                // Likewise state-store writes are committed once per few jobs (their answers follow the commit).
                let commits = DeferredCommits.enableOnCurrentThread()
                let flush = {
                    let committed = commits.flush()
                    return wakes.flush() || committed
                }
                while let job = queue.take(beforeWaiting: flush) {
                    // Held-back writes and answers never wait behind a job that may block (a call to a remote
                    // service).
                    if job.mayBlock { _ = flush() }
                    let now = MonotonicClock.nanoseconds()
                    queueWait.record(from: job.queuedAtNanos, to: now)
                    if let deadline = job.deadlineNanos, now > deadline {
                        job.expire()
                    } else {
                        job.run()
                    }
                    if VerifierPool.holdsBack(queued: queue.count, threads: count) {
                        commits.jobFinished(maxHoldNanoseconds: VerifierPool.commitHoldNanoseconds)
                        wakes.jobFinished(limit: VerifierPool.jobsPerWake)
                    } else {
                        _ = flush()
                    }
                }
                _ = flush()
            }
            thread.start()
        }
    }

    /// Whether a thread that finished a job keeps its answers and writes held back, with `queued` jobs waiting
    /// for the pool's `threads`.
    static func holdsBack(queued: Int, threads: Int) -> Bool {
        queued >= threads * backlogPerThreadForHolds
    }

    /// Queues `job`, or runs it at once on the calling event loop (see above). Returns false, without queueing,
    /// when the queue is full or the pool is shut down.
    public func submit(_ job: Job) -> Bool {
        if job.mayRunInline && queue.isIdle && LoopTurn.claimInlineSlot() {
            if let deadline = job.deadlineNanos, MonotonicClock.nanoseconds() > deadline { job.expire() } else { job.run() }
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

/// A bounded FIFO with blocking take, guarded by one condition variable.
///
/// `@unchecked Sendable`: every stored property is read and written only with `condition` locked.
private final class JobQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [VerifierPool.Job?]
    private var head = 0
    private var stored = 0
    private var closed = false
    /// Threads blocked in `take`, waiting for a job.
    private var waiting = 0

    init(capacity: Int) {
        jobs = Array(repeating: nil, count: max(1, capacity))
    }

    var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return stored
    }

    /// Nothing queued and a thread waiting: a job submitted now would wait for nothing but a wake-up.
    var isIdle: Bool {
        condition.lock()
        defer { condition.unlock() }
        return !closed && stored == 0 && waiting > 0
    }

    func put(_ job: VerifierPool.Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed, stored < jobs.count else { return false }
        jobs[(head + stored) % jobs.count] = job
        stored += 1
        condition.signal()
        return true
    }

    /// The next job, waiting for one; nil once the queue is closed and empty. Before it waits, it calls
    /// `beforeWaiting` without the lock held, and looks again if that did anything.
    func take(beforeWaiting: () -> Bool) -> VerifierPool.Job? {
        condition.lock()
        defer { condition.unlock() }
        while stored == 0 {
            if closed { return nil }
            condition.unlock()
            let acted = beforeWaiting()
            condition.lock()
            // A job put (or a close) while the lock was released signalled no one: look again before waiting, or
            // that job waits for the next put's signal (a pool created and fed at once hung the TSan run this way).
            if acted || stored > 0 || closed { continue }
            waiting += 1
            condition.wait()
            waiting -= 1
        }
        let job = jobs[head]
        jobs[head] = nil
        head = (head + 1) % jobs.count
        stored -= 1
        return job
    }

    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
