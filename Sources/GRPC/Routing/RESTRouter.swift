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

    // Parallel arrays rather than tuples: the router is generic, and tuple metadata is looked up at run time.
    private let bindings: [RESTBinding]
    private let targets: [Target]
    /// Route indices by custom verb ("" for none), so that a request is matched against one or two bindings.
    private let byVerb: [String: [Int]]

    public init(_ routes: [(RESTBinding, Target)]) {
        bindings = routes.map(\.0)
        targets = routes.map(\.1)
        var byVerb: [String: [Int]] = [:]
        for (index, route) in routes.enumerated() { byVerb[route.0.verb ?? "", default: []].append(index) }
        self.byVerb = byVerb
    }

    /// Routes a request by HTTP `method` and request target (path and query).
    public func route(method: String, target: String) -> Route {
        guard let path = RESTPath(target) else { return .notFound }
        return route(method: method, path: path)
    }

    /// Routes a request by HTTP `method` and parsed path.
    public func route(method: String, path: RESTPath) -> Route {
        guard let candidates = byVerb[path.verb ?? ""] else { return .notFound }
        var allowed: [String] = []
        var badResource: GRPCStatus?
        for index in candidates {
            let binding = bindings[index]
            switch binding.matcher.match(path) {
            case .none:
                continue
            case .matched(let parameter):
                if binding.method == method { return .matched(targets[index], binding, parameter) }
                if !allowed.contains(binding.method) { allowed.append(binding.method) }
            case .badResource(let field, let pattern, let value):
                if badResource == nil && binding.method == method {
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
