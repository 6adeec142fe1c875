import Config

/// The route policies in their configured order, and the one a request falls under.
struct GatewayRouteTable: Sendable {
    let routes: [Configuration.GatewayRoute]
    let fallback: Configuration.GatewayRoute
    private let byName: [String: Configuration.GatewayRoute]
    /// Each route with a prefix, and that prefix as compared: canonical, and folded unless the route is case-sensitive.
    private let prefixes: [(route: Configuration.GatewayRoute, prefix: String)]
    private let foldsAny: Bool

    init(routes: [Configuration.GatewayRoute], fallback: Configuration.GatewayRoute) {
        self.routes = routes
        self.fallback = fallback
        byName = Dictionary(routes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        prefixes = routes.compactMap { route in
            guard let prefix = route.pathPrefix else { return nil }
            // The configuration keeps prefixes canonical already; a prefix set in code is made so here.
            let canonical = (try? GatewayPath.canonical(prefix)) ?? prefix
            return (route, route.caseSensitive ? canonical : GatewayPath.folded(canonical))
        }
        foldsAny = prefixes.contains { !$0.route.caseSensitive }
    }

    /// The route `name` selects when it names one; else the first whose methods and path prefix match; else the
    /// default route. An unknown name falls back to matching, so a misspelt name cannot weaken a path's policy.
    /// `path` is the request target, canonicalized first (``GatewayPath``): one that has no canonical form is
    /// refused, since the servers behind the gateway could read it as a path another route covers. Prefixes are
    /// compared without regard to case unless their route says otherwise. `method` is compared as HTTP methods are,
    /// case-sensitively (they are upper case).
    func route(method: String, path: String, name: String?) throws(GatewayPath.Refusal) -> Configuration.GatewayRoute {
        if let name, let route = byName[name] { return route }
        guard !prefixes.isEmpty else { return fallback }
        let canonical = try GatewayPath.canonical(path)
        let folded = foldsAny ? GatewayPath.folded(canonical) : canonical
        for (route, prefix) in prefixes {
            let candidate = route.caseSensitive ? canonical : folded
            // Bytes, not Characters: String's prefix test would also equate canonically equivalent Unicode.
            guard candidate.utf8.starts(with: prefix.utf8) else { continue }
            if route.methods.isEmpty || route.methods.contains(method) { return route }
        }
        return fallback
    }
}
