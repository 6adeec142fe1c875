import Basics
import Config
import GRPC
import HTTP
import Observability
import Synchronization

/// Decides whether an RPC may go on before it costs anything: per-address and per-app token buckets answer
/// RESOURCE_EXHAUSTED (429 over REST), and under overload the expensive RPCs are shed with UNAVAILABLE while the
/// cheap ones (challenges, JWKS, health) keep flowing.
final class AdmissionControl: Sendable {
    private let perAddress: RateLimiter?
    private let perApp: RateLimiter?
    private let queueDepth: @Sendable () -> Int
    /// Verifier-queue depth at and above which expensive RPCs are shed.
    let highWater: Int
    /// `attestd_rate_limited_total{scope,method}`.
    let rateLimited = CounterFamily(
        name: "attestd_rate_limited_total",
        help: "RPCs refused with RESOURCE_EXHAUSTED by a rate limit, by scope (address or app) and method.",
        labelNames: ["scope", "method"])
    /// Expensive RPCs shed because the verifier queue was above its high-water mark.
    let shedForOverload = Atomic<Int>(0)

    /// The RPCs that need a verifier thread and are shed first: the token exchanges.
    static let expensiveMethods: Set<String> = [
        "ExchangeAppAttestAttestation", "ExchangeAppAttestAssertion", "ExchangeDebugToken", "ExchangeCustomToken",
        "ExchangeDeviceCheckToken",
    ]
    /// RPCs never rate limited (`grpc.health.v1.Health`'s, by their short names): load balancers and
    /// orchestrators probe health from few addresses, often.
    static let exemptMethods: Set<String> = ["Check", "Watch"]

    /// - Parameter knownApps: the apps configured at start, which size the per-app table (with room for 16 more).
    init(configuration: Configuration.Admission, knownApps: Set<String>, queueCapacity: Int,
         queueDepth: @escaping @Sendable () -> Int) {
        perAddress = configuration.perAddress.map { RateLimiter(rate: $0) }
        perApp = configuration.perApp.map { RateLimiter(rate: $0, maxKeys: knownApps.count + 16, shardCount: 1) }
        self.queueDepth = queueDepth
        highWater = max(1, queueCapacity * configuration.expensiveQueuePercent / 100)
    }

    /// Exports the rate-limit series of `methods` at zero: the address scope for every method a limit applies to, the
    /// app scope for the app-scoped ones, each only when that limit is configured.
    func declareSeries(methods: [String]) {
        let limited = methods.filter { !Self.exemptMethods.contains($0) }
        if perAddress != nil { rateLimited.declare(CounterFamily.combinations(["address"], limited)) }
        if perApp != nil { rateLimited.declare(CounterFamily.combinations(["app"], limited.filter(Self.isAppScoped))) }
    }

    /// nil if `method` (the short RPC name) from `peer` (`host:port`) may proceed; otherwise the status to answer.
    /// `app` is asked for only when a per-app limit applies. `knownApps` are the apps configured (those of the
    /// request's configuration generation): requests naming any other app share one bucket, so made-up app ids
    /// cannot grow the table.
    func check(method: String, peer: String, knownApps: Set<String>, app: () -> Substring?) -> GRPCStatus? {
        if perAddress != nil || perApp != nil, !Self.exemptMethods.contains(method) {
            let now = MonotonicClock.nanoseconds()
            if let perAddress {
                let host = Self.host(of: peer)
                if !perAddress.admit(String(host), now: now) {
                    rateLimited.increment(["address", method])
                    return GRPCStatus(.resourceExhausted, "Too many requests from \(host); retry later.")
                }
            }
            if let perApp, Self.isAppScoped(method), let app = app() {
                let key = knownApps.contains(String(app)) ? String(app) : "(unknown)"
                if !perApp.admit(key, now: now) {
                    rateLimited.increment(["app", method])
                    return GRPCStatus(.resourceExhausted, "Too many requests for app \(key); retry later.")
                }
            }
        }
        if Self.expensiveMethods.contains(method), queueDepth() >= highWater {
            shedForOverload.add(1, ordering: .relaxed)
            return GRPCStatus(.unavailable, "Overloaded; try again.")
        }
        return nil
    }

    /// Token-exchange RPCs whose request names an app in field 1.
    static func isAppScoped(_ method: String) -> Bool {
        method.hasPrefix("Exchange") || method.hasPrefix("Generate")
    }

    /// The host part of `host:port` or `[v6]:port`.
    static func host(of peer: String) -> Substring {
        guard let colon = peer.lastIndex(of: ":") else { return peer[...] }
        let host = peer[..<colon]
        if host.hasPrefix("["), host.hasSuffix("]") { return host.dropFirst().dropLast() }
        return host
    }
}
