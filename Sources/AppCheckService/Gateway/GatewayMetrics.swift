import Observability

/// `attestd_gateway_decisions_total{route,app,decision,reason}`: per route and app, the requests allowed, denied
/// (by reason), and, on routes in monitor mode, those that would have been denied: what to watch before
/// switching a route to enforce.
struct GatewayMetrics: Sendable {
    let decisions = CounterFamily(
        name: "attestd_gateway_decisions_total",
        help: "Gateway checks by route, app, decision (allowed, denied, would_deny) and reason.",
        labelNames: ["route", "app", "decision", "reason"])

    func allowed(route: String, app: String) { decisions.increment([route, app, "allowed", ""]) }
    func denied(route: String, app: String, reason: String) { decisions.increment([route, app, "denied", reason]) }
    func wouldDeny(route: String, app: String, reason: String) { decisions.increment([route, app, "would_deny", reason]) }
}
