import Synchronization

/// Whether this node wants traffic: SERVING until a graceful shutdown begins, so that load balancers' health
/// checks (gRPC Health or `GET /healthz`) move traffic away while in-flight requests drain.
public final class HealthState: Sendable {
    private let serving = Atomic<Bool>(true)

    public init() {}

    public var isServing: Bool { serving.load(ordering: .relaxed) }

    public func stopServing() { serving.store(false, ordering: .relaxed) }
}
