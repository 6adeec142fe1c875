extension Configuration {
    /// `gateway`: the edge checks of Envoy's ext_authz (`envoy.service.auth.v3.Authorization/Check`) and nginx's
    /// `auth_request` (`GET`/`POST` on ``authRequestPath``): which header carries the token, which headers carry
    /// the verified identity upstream, and the route policies.
    public struct Gateway: Sendable {
        /// The project whose tokens are accepted (number or id); nil: the only configured project. With several
        /// projects and none named here, the gateway is not served.
        public var project: String?
        /// The request header holding the App Check token (Firebase's SDKs send `X-Firebase-AppCheck`).
        public var tokenHeader: String = "x-firebase-appcheck"
        /// Set upstream to the verified token's app id (`sub`).
        public var appIDHeader: String = "x-attestd-app-id"
        /// Set upstream to the verified token's id (`jti`).
        public var tokenIDHeader: String = "x-attestd-token-id"
        /// A header naming the route policy to apply, on nginx's auth_request subrequest; it wins over method and
        /// path matching. nginx must set it (or clear it) itself, so that a client's header of that name never
        /// reaches attestd. Envoy names a route in its configuration instead (the context extension
        /// `attestd_route`), and this header is not read from Envoy's checks.
        public var routeHeader: String = "x-attestd-route"
        /// The path nginx's `auth_request` subrequest goes to.
        public var authRequestPath: String = "/v1/authz"
        /// Where nginx passes the original request's method and URI (`proxy_set_header X-Original-Method
        /// $request_method; proxy_set_header X-Original-URI $request_uri;`).
        public var originalMethodHeader: String = "x-original-method"
        public var originalURIHeader: String = "x-original-uri"
        /// Verified tokens kept, until their `exp`, so a session token costs one signature check per node.
        public var cacheEntries: Int = 65_536
        /// Route policies, tried in order; the first that matches applies.
        public var routes: [GatewayRoute] = []
        /// The policy of requests that match no route; `"mode": "deny"` refuses them all.
        public var defaultRoute: GatewayRoute = GatewayRoute(name: "default")

        public init() {}
    }

    /// One route policy: which requests it covers, which apps may call it, and how strictly.
    public struct GatewayRoute: Sendable {
        public enum Mode: String, Sendable, CaseIterable {
            /// Requests without a valid token are refused.
            case enforce
            /// Every request goes through; those that would be refused are counted and logged (a gradual rollout).
            case monitor
            /// Every request is refused, token or not (a default route that lets nothing unlisted through).
            case deny
        }

        /// The name in metrics, and what `routeHeader` or Envoy's `attestd_route` context extension selects.
        public var name: String
        /// HTTP methods covered (upper case); empty covers every method.
        public var methods: Set<String>
        /// Path prefix covered, in canonical form (``GatewayPath``); nil means the route is selected by name only.
        public var pathPrefix: String?
        /// Whether the prefix is compared with regard to case. By default it is not, since many servers route
        /// without regard to case (Express, ASP.NET Core): `/V1/REDEEM` reaches their `/v1/redeem` handler.
        public var caseSensitive: Bool
        /// App ids allowed; empty allows every app of the project.
        public var apps: Set<String>
        public var mode: Mode
        /// The token must be a limited-use token (5 minutes) and is consumed on first use, cluster-wide through the
        /// state store (replay protection for redeem, claim, submit-score calls): refused the second time.
        public var limitedUse: Bool

        public init(name: String, methods: Set<String> = [], pathPrefix: String? = nil, caseSensitive: Bool = false,
                    apps: Set<String> = [], mode: Mode = .enforce, limitedUse: Bool = false) {
            self.name = name
            self.methods = methods
            self.pathPrefix = pathPrefix
            self.caseSensitive = caseSensitive
            self.apps = apps
            self.mode = mode
            self.limitedUse = limitedUse
        }
    }

    /// Reads the `gateway` section; every member is optional.
    package static func readGateway(_ reader: JSONFieldReader?, projects: [Project]) -> Gateway {
        var gateway = Gateway()
        guard let reader else { return gateway }
        reader.rejectUnknownKeys(except: [
            "project", "tokenHeader", "appIdHeader", "tokenIdHeader", "routeHeader", "authRequestPath",
            "originalMethodHeader", "originalUriHeader", "cacheEntries", "routes", "defaultRoute",
        ])
        if let project = reader.string("project", default: ""), !project.isEmpty {
            if !projects.contains(where: { $0.number == project || $0.id == project }) {
                reader.problem(reader.field("project"), "names no configured project")
            }
            gateway.project = project
        } else if projects.count > 1 {
            reader.problem(reader.field("project"), "is required when several projects are configured")
        }
        func header(_ name: String, _ fallback: String) -> String {
            let value = (reader.string(name, default: fallback) ?? fallback).lowercased()
            if value.isEmpty || !value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f && $0 != UInt8(ascii: ":") }) {
                reader.problem(reader.field(name), "must be an HTTP header name")
            }
            return value
        }
        gateway.tokenHeader = header("tokenHeader", gateway.tokenHeader)
        gateway.appIDHeader = header("appIdHeader", gateway.appIDHeader)
        gateway.tokenIDHeader = header("tokenIdHeader", gateway.tokenIDHeader)
        gateway.routeHeader = header("routeHeader", gateway.routeHeader)
        gateway.originalMethodHeader = header("originalMethodHeader", gateway.originalMethodHeader)
        gateway.originalURIHeader = header("originalUriHeader", gateway.originalURIHeader)
        gateway.authRequestPath = reader.string("authRequestPath", default: gateway.authRequestPath) ?? gateway.authRequestPath
        if !gateway.authRequestPath.hasPrefix("/") || gateway.authRequestPath.contains("?") {
            reader.problem(reader.field("authRequestPath"), "must be a path starting with / and without a query")
        }
        gateway.cacheEntries = reader.integer("cacheEntries", default: gateway.cacheEntries, in: 0...16_777_216)

        let appIDs = Set(projects.flatMap { $0.apps.map(\.appID) })
        gateway.routes = reader.objects("routes", required: false).map { readRoute($0, appIDs: appIDs, named: nil) }
        var names = Set<String>()
        for route in gateway.routes where !names.insert(route.name).inserted {
            reader.problem(reader.field("routes"), "route name \(route.name) appears more than once")
        }
        if let fallback = reader.object("defaultRoute") {
            gateway.defaultRoute = readRoute(fallback, appIDs: appIDs, named: "default")
        }
        return gateway
    }

    private static func readRoute(_ route: JSONFieldReader, appIDs: Set<String>, named fixedName: String?) -> GatewayRoute {
        route.rejectUnknownKeys(except: fixedName == nil
            ? ["name", "methods", "pathPrefix", "caseSensitive", "apps", "mode", "limitedUse"]
            : ["apps", "mode", "limitedUse"])
        let name = fixedName ?? route.string("name") ?? ""
        let methods = Set((route.strings("methods", required: false)).map { $0.uppercased() })
        var pathPrefix: String?
        if fixedName == nil, let prefix = route.string("pathPrefix", default: ""), !prefix.isEmpty {
            if !prefix.hasPrefix("/") {
                route.problem(route.field("pathPrefix"), "must start with /")
            } else if prefix.contains("?") || prefix.contains("#") {
                route.problem(route.field("pathPrefix"), "must be a path without a query or fragment")
            } else {
                // Matched against canonical paths, so kept in canonical form itself (`/v1//redeem` is `/v1/redeem`).
                do throws(GatewayPath.Refusal) {
                    pathPrefix = try GatewayPath.canonical(prefix)
                } catch {
                    route.problem(route.field("pathPrefix"), "has no canonical form: \(error.description)")
                }
            }
        }
        let caseSensitive = fixedName == nil && route.bool("caseSensitive", default: false)
        let apps = Set(route.strings("apps", required: false))
        for app in apps where !appIDs.contains(app) {
            route.problem(route.field("apps"), "\(app) is not a configured app")
        }
        let mode = route.choice("mode", default: GatewayRoute.Mode.enforce)
        return GatewayRoute(name: name, methods: methods, pathPrefix: pathPrefix, caseSensitive: caseSensitive,
                            apps: apps, mode: mode, limitedUse: route.bool("limitedUse", default: false))
    }
}
