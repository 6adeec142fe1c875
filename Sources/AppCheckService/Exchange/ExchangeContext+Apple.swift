import Apple
import Basics
import GRPC
import HTTP
import Observability

extension ExchangeContext {
    /// How long a call to Apple may take when the context carries no deadline (the router gives every request one).
    static let defaultAppleBudgetNanos: UInt64 = 10_000_000_000

    /// Runs one call to Apple within the caller's deadline and turns its failure into the status the contract
    /// asks for: a device token Apple refuses is PERMISSION_DENIED (the client's fault); anything about our own key
    /// or request is UNAVAILABLE and logged as an error, so an operator sees a misconfiguration at once; Apple
    /// unreachable or overloaded is UNAVAILABLE; Apple silent until the caller's deadline is DEADLINE_EXCEEDED.
    /// Every outcome is counted in `attestd_apple_requests_total{app,endpoint,outcome}`.
    func callApple<T>(
        app: RegisteredApp, endpoint: String, requests: CounterFamily, context: RPCContext,
        _ call: (ContinuousClock.Instant) throws(AppleError) -> T
    ) throws(GRPCStatus) -> T {
        let now = MonotonicClock.nanoseconds()
        let remaining = context.deadlineNanos.map { $0 > now ? $0 - now : 0 } ?? Self.defaultAppleBudgetNanos
        let deadline = ContinuousClock.now + .nanoseconds(Int64(min(remaining, UInt64(Int64.max))))
        do {
            let result = try call(deadline)
            requests.increment([app.appID, endpoint, "ok"])
            return result
        } catch {
            requests.increment([app.appID, endpoint, error.code.description])
            switch error.code {
            case .deviceTokenRejected:
                throw refuse(app: app.appID, provider: .deviceCheck, reason: ServiceRefusal.deviceTokenRejected, detail: error.message, context: context)
            case .unavailable:
                context.logger.warning("Apple DeviceCheck unavailable", [("app", app.appID), ("error", error.message)])
                throw GRPCStatus(.unavailable, "Apple DeviceCheck is unavailable; try again.")
            case .deadlineExceeded:
                context.logger.warning("Apple DeviceCheck did not answer in time", [("app", app.appID), ("error", error.message)])
                throw GRPCStatus(.deadlineExceeded, "Apple DeviceCheck did not answer before the deadline.")
            default:
                context.logger.error(
                    "Apple refused our DeviceCheck request: check the app's deviceCheck key (keyId, .p8, team id) and apple.deviceCheckURL",
                    [("app", app.appID), ("code", error.code.description), ("error", error.message)])
                throw GRPCStatus(.unavailable, "DeviceCheck is misconfigured on this server.")
            }
        }
    }
}
