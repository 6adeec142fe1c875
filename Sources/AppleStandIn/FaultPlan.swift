import Synchronization

/// Answers the next requests with an error status instead of serving them, so that clients' retries and
/// deadlines can be tested: for example 429 once, or 503 forever.
public final class FaultPlan: Sendable {
    private struct Fault {
        var status: Int
        /// Requests still to fail; nil means every request from now on.
        var remaining: Int?
    }

    private let faults = Mutex<[Fault]>([])

    public init() {}

    /// Queues `count` answers with `status` (nil `count`: fail every request until ``clear()``).
    public func fail(status: Int, count: Int?) {
        faults.withLock { $0.append(Fault(status: status, remaining: count)) }
    }

    /// Drops every queued fault.
    public func clear() {
        faults.withLock { $0.removeAll() }
    }

    /// The status to answer the current request with, if a fault is due; consumes one.
    func next() -> Int? {
        faults.withLock { faults in
            while let first = faults.first {
                guard let remaining = first.remaining else { return first.status }
                if remaining <= 0 { faults.removeFirst(); continue }
                faults[0].remaining = remaining - 1
                return first.status
            }
            return nil
        }
    }
}
