import Basics
import Batching
import Config
import GRPC
import Observability
import Storage
import Tokens
import VerifierPool

/// Decides whether a request may pass the gateway: its path is canonicalized to pick the route policy (or refused
/// when it has no canonical form), the App Check token from its headers is verified (signature against attestd's
/// own current keys, `exp`, `iss`, `aud` naming the project), its app must be allowed by the route, and, on
/// limited-use routes, the token must be a limited-use one and is consumed once, cluster-wide. Shared by the
/// Envoy ext_authz handler and nginx's auth_request endpoint.
///
/// Threading: `authorize` is called on an event loop. A token found in the verified-token cache, on a route that
/// does not consume it, is decided right there: a SHA-256, one shard lock, a few comparisons, far cheaper than
/// the hand-off to a verifier thread and back. An RSA verification or a state-store round trip (both block) goes
/// to the verifier pool like every other expensive call.
final class GatewayAuthorizer: Sendable {
    let configuration: Configuration.Gateway
    let routes: GatewayRouteTable
    let cache: VerifiedTokenCache
    let metrics: GatewayMetrics
    private let project: String
    private let apps: AppRegistry
    private let verifier: AppCheckTokenVerifier
    private let store: any StateStore
    private let storeErrors: CounterFamily
    private let pool: VerifierPool
    private let logger: Logger
    private let clock: TimeSource

    init(configuration: Configuration.Gateway, project: String, apps: AppRegistry, verifier: AppCheckTokenVerifier,
         store: any StateStore, storeErrors: CounterFamily = StoreErrorMetric.family(), pool: VerifierPool,
         logger: Logger, clock: TimeSource = .system, metrics: GatewayMetrics = GatewayMetrics()) {
        self.configuration = configuration
        self.metrics = metrics
        self.routes = GatewayRouteTable(routes: configuration.routes, fallback: configuration.defaultRoute)
        self.cache = VerifiedTokenCache(capacity: configuration.cacheEntries)
        self.project = project
        self.apps = apps
        self.verifier = verifier
        self.store = store
        self.storeErrors = storeErrors
        self.pool = pool
        self.logger = logger
        self.clock = clock
        metrics.declare(routes: configuration.routes + [configuration.defaultRoute], apps: apps.appIDs(inProject: project))
    }

    /// The project named by the configuration, else the only configured one; nil when neither decides.
    static func project(_ gateway: Configuration.Gateway, projects: [Configuration.Project]) -> String? {
        gateway.project ?? (projects.count == 1 ? projects[0].id : nil)
    }

    /// Decides about `request` and calls `done` exactly once, on this thread or on a verifier thread (or a store's
    /// committer), with the batch the answer joins.
    func authorize(_ request: GatewayRequest, deadlineNanos: UInt64?, requestID: @escaping @Sendable () -> String,
                   done: @escaping Done) {
        let route: Configuration.GatewayRoute
        do throws(GatewayPath.Refusal) {
            route = try routes.route(method: request.method, path: request.path, name: request.routeName)
        } catch {
            // No route can be told, so no route's mode applies (not even monitor): refused, and counted under the
            // default route's name.
            let denial = GatewayDenial.invalidPath(error)
            metrics.denied(route: routes.fallback.name, app: "", reason: denial.reason)
            logger.debug("gateway denied", [("requestId", requestID()), ("reason", denial.reason), ("path", request.path)])
            done(.deny(denial, facts: GatewayFacts(route: routes.fallback.name, decision: "denied", reason: denial.reason)), nil)
            return
        }
        if route.mode == .deny {
            done(conclude(route, token: nil, .routeDenied, requestID: requestID), nil)
            return
        }
        guard let token = request.token, !token.isEmpty else {
            done(conclude(route, token: nil, .missingToken, requestID: requestID), nil)
            return
        }
        guard !token.utf8.contains(UInt8(ascii: ",")) else {
            done(conclude(route, token: nil, .duplicateToken, requestID: requestID), nil)
            return
        }
        let digest = TokenDigest(token: token)
        let cached = cache.lookup(digest, now: now())
        if let cached, !route.limitedUse {
            decide(route, cached, requestID: requestID, joining: nil, done: done)
            return
        }
        let accepted = pool.submit(.init(
            deadlineNanos: deadlineNanos,
            run: { [self] batch in
                let verified: VerifiedAppCheckToken
                if let cached {
                    verified = cached
                } else {
                    do throws(AppCheckTokenError) {
                        verified = try verifier.verify(token, project: project, now: now())
                    } catch {
                        done(conclude(route, token: nil, .refused(error.reason), requestID: requestID), batch)
                        return
                    }
                    // Only tokens of the project's configured apps are cached, so a cache hit needs no app lookup.
                    guard (try? apps.app(named: "projects/\(verified.projectNumber)/apps/\(verified.appID)")) != nil else {
                        done(conclude(route, token: verified, .refused("unknownApp"), requestID: requestID), batch)
                        return
                    }
                    cache.insert(digest, verified)
                }
                decide(route, verified, requestID: requestID, joining: batch, done: done)
            },
            expire: { [self] batch in
                done(conclude(route, token: nil, .unavailable("deadlineExceeded", "Deadline exceeded while waiting for a verifier."),
                              requestID: requestID), batch)
            }), inlineOn: nil)
        if !accepted {
            done(conclude(route, token: nil, .unavailable("overloaded", "Overloaded; try again."), requestID: requestID), nil)
        }
    }

    /// Receives a decision and the batch its answer joins (nil: none).
    typealias Done = @Sendable (GatewayDecision, Batch?) -> Void

    /// Decides about a verified token of a configured app on `route`: the app allowed there, and, on a limited-use
    /// route, the token consumed (a store write, joining `batch`; so only ever made on a verifier thread) and the
    /// decision made once that is stored.
    private func decide(_ route: Configuration.GatewayRoute, _ token: VerifiedAppCheckToken,
                        requestID: @escaping @Sendable () -> String, joining batch: Batch?, done: @escaping Done) {
        guard route.apps.isEmpty || route.apps.contains(token.appID) else {
            return done(conclude(route, token: token, .refused("appNotAllowed"), requestID: requestID), batch)
        }
        guard route.limitedUse else {
            return done(conclude(route, token: token, nil, requestID: requestID), batch)
        }
        // Only a limited-use token is meant to be spent: a session token (which the client would need again) is
        // refused here rather than burnt.
        guard Self.isLimitedUse(token) else {
            return done(conclude(route, token: token, .refused("notLimitedUse"), requestID: requestID), batch)
        }
        // The token may have come from the cache: checked again just before the store consumes it.
        guard now() < token.expiresAt else {
            return done(conclude(route, token: token, .refused(AppCheckTokenError.expired.reason), requestID: requestID), batch)
        }
        store.consumeToken(token.jti, expiresAt: token.expiresAt, joining: batch) { [self] result, batch in
            switch result {
            case .success(true):
                done(conclude(route, token: token, nil, requestID: requestID), batch)
            case .success(false):
                done(conclude(route, token: token, .refused("alreadyConsumed"), requestID: requestID), batch)
            case .failure(let error):
                storeErrors.increment([StoreErrorMetric.gateway])
                logger.error("state store unavailable", [("requestId", requestID()), ("error", error.description)])
                done(conclude(route, token: token, .unavailable("storeUnavailable", "State store unavailable; try again."),
                              requestID: requestID), batch)
            }
        }
    }

    /// Counts the outcome and turns a denial into a pass on a route in monitor mode.
    private func conclude(_ route: Configuration.GatewayRoute, token: VerifiedAppCheckToken?, _ denial: GatewayDenial?,
                          requestID: @escaping @Sendable () -> String) -> GatewayDecision {
        let app = token?.appID ?? ""
        let headers = token.map(identityHeaders) ?? []
        guard let denial else {
            metrics.allowed(route: route.name, app: app)
            return .allow(headers: headers, facts: GatewayFacts(route: route.name, decision: "allowed", reason: "", token: token))
        }
        switch route.mode {
        case .monitor:
            // Debug, not info: in a rollout most of a route's traffic may be would-deny; the metric is what to watch.
            metrics.wouldDeny(route: route.name, app: app, reason: denial.reason)
            logger.debug("gateway would deny", [("requestId", requestID()), ("route", route.name), ("app", app),
                                                ("reason", denial.reason)])
            return .allow(headers: headers, facts: GatewayFacts(route: route.name, decision: "would_deny",
                                                                reason: denial.reason, token: token))
        case .enforce, .deny:
            metrics.denied(route: route.name, app: app, reason: denial.reason)
            logger.debug("gateway denied", [("requestId", requestID()), ("route", route.name), ("app", app),
                                            ("reason", denial.reason)])
            return .deny(denial, facts: GatewayFacts(route: route.name, decision: "denied", reason: denial.reason, token: token))
        }
    }

    /// A limited-use token lives 5 minutes and a session token at least 30.
    static func isLimitedUse(_ token: VerifiedAppCheckToken) -> Bool {
        token.expiresAt - token.issuedAt <= TokenLifetime.limitedUse.seconds
    }

    /// The headers set on the upstream request: who the verified caller is.
    private func identityHeaders(_ token: VerifiedAppCheckToken) -> [(String, String)] {
        [(configuration.appIDHeader, token.appID), (configuration.tokenIDHeader, token.jti)]
    }

    private func now() -> Int64 { clock.unixSeconds() }
}
