import Config
import Observability
import Tokens

/// `attestd_gateway_decisions_total{route,app,decision,reason}`: per route and app, the requests allowed, denied
/// (by reason), and, on routes in monitor mode, those that would have been denied: what to watch before
/// switching a route to enforce.
struct GatewayMetrics: Sendable {
    let decisions = CounterFamily(
        name: "attestd_gateway_decisions_total",
        help: "Gateway checks by route, app, decision (allowed, denied, would_deny) and reason.",
        labelNames: ["route", "app", "decision", "reason"])

    /// Exports each route's foreseeable series at zero: allowed for each app it admits (`apps`, every app of the
    /// project, when the route names none), and its refusal decision (denied, or would_deny in monitor mode) with
    /// no app for a missing token and for each way a token can fail its check; a deny route's `routeDenied`.
    func declare(routes: [Configuration.GatewayRoute], apps: [String]) {
        for route in routes {
            switch route.mode {
            case .deny:
                decisions.declare([[route.name, "", "denied", GatewayDenial.routeDenied.reason]])
            case .enforce, .monitor:
                let admitted = route.apps.isEmpty ? apps : route.apps.sorted()
                decisions.declare(CounterFamily.combinations([route.name], admitted, ["allowed"], [""]))
                decisions.declare(CounterFamily.combinations(
                    [route.name], [""], [route.mode == .monitor ? "would_deny" : "denied"],
                    [GatewayDenial.missingToken.reason] + AppCheckTokenError.all.map(\.reason)))
            }
        }
    }

    func allowed(route: String, app: String) { decisions.increment([route, app, "allowed", ""]) }
    func denied(route: String, app: String, reason: String) { decisions.increment([route, app, "denied", reason]) }
    func wouldDeny(route: String, app: String, reason: String) { decisions.increment([route, app, "would_deny", reason]) }
}
