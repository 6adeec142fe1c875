import Config
import HTTP

/// What the router serves under one loaded configuration: its endpoints (the apps, keys, callers and verifiers
/// they were built over), the gateway with its route policies, and the apps admission control knows.
///
/// Immutable. The router takes the current generation once, when a request is dispatched, and that request uses
/// it until it is answered, so a reload never changes the configuration under a request in flight.
final class ServingGeneration: Sendable {
    /// 1 for the configuration read at start, one more for each reload that was applied.
    let number: Int
    /// Envoy's and nginx's edge checks; nil when no gateway project is configured.
    let gateway: GatewayAuthorizer?
    /// The configured apps: requests naming any other app share one rate-limit bucket.
    let knownApps: Set<String>
    /// What each listener serves, by its position in the configuration's `listeners`.
    private let servedByListener: [ServedEndpoints]
    /// What a request from a listener beyond that list is served: everything (the in-memory tests' requests).
    private let servedByDefault: ServedEndpoints

    init(number: Int, endpoints: [RPCEndpoint], listenerServices: [ListenerServices], gateway: GatewayAuthorizer?,
         knownApps: Set<String>) {
        self.number = number
        self.gateway = gateway
        self.knownApps = knownApps
        // Listeners mostly share a role: one table per distinct set of services.
        var tables: [ListenerServices: ServedEndpoints] = [:]
        servedByListener = listenerServices.map { services in
            if let table = tables[services] { return table }
            let table = ServedEndpoints(endpoints, services: services)
            tables[services] = table
            return table
        }
        servedByDefault = tables[.all] ?? ServedEndpoints(endpoints, services: .all)
    }

    /// The endpoints of the listener `request` arrived on.
    func served(_ request: HTTPRequest) -> ServedEndpoints {
        servedByListener.indices.contains(request.listenerIndex) ? servedByListener[request.listenerIndex] : servedByDefault
    }
}
