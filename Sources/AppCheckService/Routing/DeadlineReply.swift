import AppCheckMessages
import Basics
import Batching
import Dispatch
import GRPC
import HTTP
import Synchronization

/// Answers one call exactly once: with its work's result, or with DEADLINE_EXCEEDED at its deadline, whichever
/// comes first.
///
/// For work queued behind calls to a remote service that may hang (Apple): threads that all wait on the network
/// cannot expire the work queued behind them, so a timer answers the caller at its deadline instead of whenever a
/// thread frees up; the work, once a thread takes it, sees the call answered and does not start.
final class DeadlineReply<Response: ProtoMessage>: Sendable {
    private let reply: RPCReply<Response>
    private let answered = Atomic<Bool>(false)

    init(_ reply: RPCReply<Response>) {
        self.reply = reply
    }

    /// Whether the call has been answered: work that has not started must not start.
    var isAnswered: Bool { answered.load(ordering: .acquiring) }

    /// Answers with `result`, joining `batch`, unless the call has been answered already.
    func complete(_ result: Result<Response, GRPCStatus>, joining batch: Batch?) {
        guard !answered.exchange(true, ordering: .acquiringAndReleasing) else { return }
        reply.complete(result, joining: batch)
    }

    /// Answers `status` at `deadlineNanos` (``MonotonicClock``) unless the call is answered before. The timer
    /// holds this reply weakly: a call answered long before a distant deadline leaves only the timer behind.
    func expire(at deadlineNanos: UInt64, with status: GRPCStatus) {
        let delay = deadlineNanos &- min(MonotonicClock.nanoseconds(), deadlineNanos)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: delay))) { [weak self] in
            self?.complete(.failure(status), joining: nil)
        }
    }
}
