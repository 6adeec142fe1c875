import Basics
import GRPC
import HTTP

extension ServiceRouter {
    /// The request's deadline in ``MonotonicClock`` nanoseconds, counted from its arrival: its `grpc-timeout`, else
    /// `limits.defaultDeadlineSeconds`. Work still waiting for a thread then is dropped without running, a call to
    /// Apple gets what is left as its timeout, and an answer ready only after it is DEADLINE_EXCEEDED (504).
    func deadline(for request: HTTPRequest, timeout: GRPCTimeout? = nil) -> UInt64 {
        GRPCDeadline(receivedAt: request.receivedAtNanos, timeout: timeout, default: defaultDeadline).uptimeNanoseconds
    }

    /// `result`, or DEADLINE_EXCEEDED when it came after `deadline`: the caller has given up (gRPC) or been told
    /// the deadline is the server's bound on the call (REST), so a late answer is not sent as if in time.
    func inTime<Value>(_ result: Result<Value, GRPCStatus>, deadline: UInt64) -> Result<Value, GRPCStatus> {
        guard MonotonicClock.nanoseconds() > deadline else { return result }
        return .failure(GRPCStatus(.deadlineExceeded, "Deadline exceeded before the answer was ready."))
    }
}
