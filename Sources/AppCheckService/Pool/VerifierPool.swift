import Foundation
import HTTP
import Synchronization

/// Worker threads that run what an event loop must not: signature checks, token signing, state-store calls.
///
/// The queue is bounded. When it is full a job is refused at once, and the caller answers UNAVAILABLE: shedding
/// load keeps latency bounded for the requests that are admitted, where an unbounded queue would only delay every
/// answer past its caller's patience. A job whose deadline passed while it waited is expired without running, so
/// no crypto is spent on an answer nobody is waiting for.
public final class VerifierPool: Sendable {
    /// One unit of work.
    public struct Job: Sendable {
        /// CLOCK_MONOTONIC nanoseconds after which the job is not worth running.
        public var deadlineNanos: UInt64?
        /// Runs the work, on a pool thread.
        public var run: @Sendable () -> Void
        /// Called instead of `run` when the deadline passed before a thread took the job.
        public var expire: @Sendable () -> Void

        public init(deadlineNanos: UInt64?, run: @escaping @Sendable () -> Void, expire: @escaping @Sendable () -> Void) {
            self.deadlineNanos = deadlineNanos
            self.run = run
            self.expire = expire
        }
    }

    public let threadCount: Int
    public let capacity: Int
    private let queue: JobQueue
    private let refused = Atomic<Int>(0)

    /// - Parameters:
    ///   - threads: worker threads; 0 means one per core.
    ///   - capacity: jobs that may wait; beyond it `submit` refuses.
    public init(threads: Int, capacity: Int) {
        let count = threads > 0 ? threads : ProcessInfo.processInfo.activeProcessorCount
        threadCount = count
        self.capacity = capacity
        queue = JobQueue(capacity: capacity)
        for index in 0..<count {
            let thread = Thread { [queue] in
                while let job = queue.take() {
                    if let deadline = job.deadlineNanos, MonotonicClock.nanoseconds() > deadline {
                        job.expire()
                    } else {
                        job.run()
                    }
                }
            }
            thread.name = "verifier-\(index)"
            thread.start()
        }
    }

    /// Queues `job`. Returns false, without queueing, when the queue is full or the pool is shut down.
    public func submit(_ job: Job) -> Bool {
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

    init(capacity: Int) {
        jobs = Array(repeating: nil, count: max(1, capacity))
    }

    var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return stored
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

    /// The next job, waiting for one; nil once the queue is closed and empty.
    func take() -> VerifierPool.Job? {
        condition.lock()
        defer { condition.unlock() }
        while stored == 0 {
            if closed { return nil }
            condition.wait()
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
