/// When an RPC must be finished, on a monotonic clock in nanoseconds that the caller reads (so that this module
/// has no clock of its own and tests pin time).
public struct GRPCDeadline: Hashable, Sendable, Comparable {
    /// The monotonic time, in nanoseconds, after which the work is no longer wanted.
    public let uptimeNanoseconds: UInt64

    public init(uptimeNanoseconds: UInt64) {
        self.uptimeNanoseconds = uptimeNanoseconds
    }

    /// The deadline of a request received at `now`: its `grpc-timeout` (when there is one) capped at `limit`, the
    /// server's own bound on any request.
    public init(receivedAt now: UInt64, timeout: GRPCTimeout?, limit: GRPCTimeout) {
        let span = UInt64(min(timeout?.nanoseconds ?? limit.nanoseconds, limit.nanoseconds))
        let (sum, overflow) = now.addingReportingOverflow(span)
        uptimeNanoseconds = overflow ? .max : sum
    }

    /// The deadline of a request received at `now`: its `grpc-timeout` when it sent one, else the server's
    /// `fallback` (for REST calls, and gRPC calls that send none), so that every request has one from its arrival.
    public init(receivedAt now: UInt64, timeout: GRPCTimeout?, default fallback: GRPCTimeout) {
        let (sum, overflow) = now.addingReportingOverflow(UInt64(timeout?.nanoseconds ?? fallback.nanoseconds))
        uptimeNanoseconds = overflow ? .max : sum
    }

    /// Whether the deadline has passed at `now`: the work should stop with DEADLINE_EXCEEDED.
    public func hasPassed(at now: UInt64) -> Bool { now >= uptimeNanoseconds }

    /// Nanoseconds left at `now` (zero once passed): what to forward as `grpc-timeout` to a backend.
    public func remaining(at now: UInt64) -> GRPCTimeout {
        GRPCTimeout(nanoseconds: Int64(clamping: uptimeNanoseconds &- min(now, uptimeNanoseconds)))
    }

    /// The status for work that missed its deadline.
    public static let exceeded = GRPCStatus(.deadlineExceeded, "Deadline exceeded before the request was served.")

    public static func < (lhs: GRPCDeadline, rhs: GRPCDeadline) -> Bool { lhs.uptimeNanoseconds < rhs.uptimeNanoseconds }
}
