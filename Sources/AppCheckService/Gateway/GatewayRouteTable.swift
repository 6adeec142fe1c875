/// The route policies in their configured order, and the one a request falls under.
struct GatewayRouteTable: Sendable {
    let routes: [Configuration.GatewayRoute]
    let fallback: Configuration.GatewayRoute
    private let byName: [String: Configuration.GatewayRoute]

    init(routes: [Configuration.GatewayRoute], fallback: Configuration.GatewayRoute) {
        self.routes = routes
        self.fallback = fallback
        byName = Dictionary(routes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The route `name` selects when it names one; else the first whose methods and path prefix match; else the
    /// default route. An unknown name falls back to matching, so a misspelt name cannot weaken a path's policy.
    /// `path` is the request target, resolved first (``GatewayPath``). `method` is compared as HTTP methods are,
    /// case-sensitively (they are upper case).
    func route(method: String, path: String, name: String?) -> Configuration.GatewayRoute {
        if let name, let route = byName[name] { return route }
        guard !routes.isEmpty else { return fallback }
        let path = GatewayPath.normalized(path)
        for route in routes {
            guard let prefix = route.pathPrefix, path.hasPrefix(prefix) else { continue }
            if route.methods.isEmpty || route.methods.contains(method) { return route }
        }
        return fallback
    }
}
