import Synchronization

/// Answers the next requests with an error status instead of serving them, or serves them only after a delay, so
/// that clients' retries and deadlines can be tested: for example 429 once, 503 forever, or an Apple that hangs.
public final class FaultPlan: Sendable {
    /// What a scripted fault does to one request.
    public enum Action: Sendable, Equatable {
        /// Answered with this status and Apple's text for it, not served.
        case fail(status: Int)
        /// Served as usual, but answered only this many milliseconds later (the stand-in keeps serving others).
        case delay(milliseconds: Int)
    }

    private struct Fault {
        var action: Action
        /// Requests still to affect; nil means every request from now on.
        var remaining: Int?
    }

    private let faults = Mutex<[Fault]>([])

    public init() {}

    /// Queues `count` answers with `status` (nil `count`: fail every request until ``clear()``).
    public func fail(status: Int, count: Int?) {
        faults.withLock { $0.append(Fault(action: .fail(status: status), remaining: count)) }
    }

    /// Queues `count` requests answered `milliseconds` late (nil `count`: every request until ``clear()``): a
    /// large delay is an Apple that hangs.
    public func delay(milliseconds: Int, count: Int?) {
        faults.withLock { $0.append(Fault(action: .delay(milliseconds: milliseconds), remaining: count)) }
    }

    /// Drops every queued fault.
    public func clear() {
        faults.withLock { $0.removeAll() }
    }

    /// What to do to the current request, if a fault is due; consumes one.
    func next() -> Action? {
        faults.withLock { faults in
            while let first = faults.first {
                guard let remaining = first.remaining else { return first.action }
                if remaining <= 0 { faults.removeFirst(); continue }
                faults[0].remaining = remaining - 1
                return first.action
            }
            return nil
        }
    }
}
