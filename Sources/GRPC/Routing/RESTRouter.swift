/// A table from REST bindings to whatever the server runs for them (`Target`), matched in order.
public struct RESTRouter<Target: Sendable>: Sendable {
    /// The outcome of routing one request.
    public enum Route {
        /// A binding fits: run `target` with the request message's fields from the path.
        case matched(Target, RESTBinding, PathParameter?)
        /// The path fits bindings, but none with this HTTP method; `allowed` lists theirs.
        case methodNotAllowed(allowed: [String])
        /// A binding's verb fits but the resource name in the path has the wrong shape: INVALID_ARGUMENT.
        case invalidResource(GRPCStatus)
        /// No binding fits the path.
        case notFound
    }

    private let routes: [(binding: RESTBinding, target: Target)]

    public init(_ routes: [(RESTBinding, Target)]) {
        self.routes = routes.map { (binding: $0.0, target: $0.1) }
    }

    /// Routes a request by HTTP `method` and request target (path and query).
    public func route(method: String, target: String) -> Route {
        guard let path = RESTPath(target) else { return .notFound }
        return route(method: method, path: path)
    }

    /// Routes a request by HTTP `method` and parsed path.
    public func route(method: String, path: RESTPath) -> Route {
        var allowed: [String] = []
        var badResource: GRPCStatus?
        for route in routes {
            switch route.binding.match(path) {
            case .none:
                continue
            case .matched(let parameter):
                if route.binding.method == method { return .matched(route.target, route.binding, parameter) }
                if !allowed.contains(route.binding.method) { allowed.append(route.binding.method) }
            case .badResource(let field, let pattern, let value):
                if badResource == nil && route.binding.method == method {
                    badResource = GRPCStatus(
                        .invalidArgument,
                        "Invalid resource name for '\(field)': \"\(value)\" does not match \(pattern)."
                    )
                }
            }
        }
        if !allowed.isEmpty { return .methodNotAllowed(allowed: allowed) }
        if let badResource { return .invalidResource(badResource) }
        return .notFound
    }
}
