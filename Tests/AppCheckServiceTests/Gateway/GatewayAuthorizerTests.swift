@testable import AppCheckService
import Basics
import Config
import Crypto
import Foundation
import GRPC
import Observability
import Storage
import Testing
import Tokens
import VerifierPool

/// The gateway's decisions with the real verifier, pool, cache and an in-memory state store.
@Suite("Gateway authorizer")
struct GatewayAuthorizerTests {
    static let appID = "1:123456789012:ios:0123456789abcdef"
    static let otherAppID = "1:123456789012:ios:00000000000000ff"
    static let keys = try! SigningKeySet(keys: [PrivateKey.generate(.rs256)], signingWith: .rs256)
    static let foreignKeys = try! SigningKeySet(keys: [PrivateKey.generate(.rs256)], signingWith: .rs256)

    let gateway: GatewayAuthorizer
    let pool = VerifierPool(threads: 1, capacity: 16)

    init() {
        gateway = Self.gateway(pool: pool)
    }

    static func gateway(pool: VerifierPool, defaultRoute: Configuration.GatewayRoute = .init(name: "default"),
                        store: any StateStore = MemoryStateStore(clock: .system)) -> GatewayAuthorizer {
        var configuration = Configuration.Gateway()
        configuration.routes = [
            .init(name: "redeem", methods: ["POST"], pathPrefix: "/redeem", limitedUse: true),
            .init(name: "v1-redeem", methods: ["POST"], pathPrefix: "/v1/redeem", limitedUse: true),
            .init(name: "exact", pathPrefix: "/Exact", caseSensitive: true, limitedUse: true),
            .init(name: "other", pathPrefix: "/other", apps: [Self.otherAppID]),
            .init(name: "beta", pathPrefix: "/beta", mode: .monitor),
        ]
        configuration.defaultRoute = defaultRoute
        let app = Configuration.App(appID: Self.appID, teamID: "DEVTEAM123", bundleIDs: ["dev.example"], environment: .development)
        let other = Configuration.App(appID: Self.otherAppID, teamID: "DEVTEAM123", bundleIDs: ["dev.other"], environment: .development)
        let project = Configuration.Project(number: "123456789012", id: "attestd-dev", apps: [app, other])
        return GatewayAuthorizer(
            configuration: configuration, project: "attestd-dev", apps: AppRegistry(projects: [project]),
            verifier: AppCheckTokenVerifier(keys: Self.keys), store: store, pool: pool, logger: Logger(label: "test"))
    }

    static func token(keys: SigningKeySet = keys, app: String = appID, issuedSecondsAgo: Int64 = 0,
                      lifetime: TokenLifetime = .default) -> String {
        let issuer = AppCheckTokenIssuer(keys: keys)
        return try! issuer.mint(appID: app, projectNumber: "123456789012", projectID: "attestd-dev", lifetime: lifetime,
                                now: Int64(time(nil)) - issuedSecondsAgo).token
    }

    final class Box: @unchecked Sendable {
        var decision: GatewayDecision?
        let done = DispatchSemaphore(value: 0)
    }

    func decide(_ token: String?, method: String = "GET", path: String = "/items", route: String? = nil,
                on gateway: GatewayAuthorizer? = nil) -> GatewayDecision {
        let box = Box()
        (gateway ?? self.gateway).authorize(GatewayRequest(method: method, path: path, routeName: route, token: token),
                          deadlineNanos: nil, requestID: { "test" }) { decision, _ in
            box.decision = decision
            box.done.signal()
        }
        box.done.wait()
        return box.decision!
    }

    func denial(_ decision: GatewayDecision) -> GatewayDenial? {
        if case .deny(let denial, _) = decision { return denial }
        return nil
    }

    func allowedHeaders(_ decision: GatewayDecision) -> [String: String]? {
        if case .allow(let headers, _) = decision { return Dictionary(headers, uniquingKeysWith: { a, _ in a }) }
        return nil
    }

    @Test("refuses a request without a token with 401 UNAUTHENTICATED")
    func missingToken() {
        let refused = denial(decide(nil))
        #expect(refused?.reason == "missingToken")
        #expect(refused?.httpStatus == 401)
        #expect(refused?.status.code == .unauthenticated)
        #expect(denial(decide(""))?.reason == "missingToken")
    }

    @Test("allows a valid token with the app id and token id headers, then answers it from the cache")
    func validToken() {
        defer { pool.shutdown() }
        let token = Self.token()
        let headers = allowedHeaders(decide(token))
        #expect(headers?["x-attestd-app-id"] == Self.appID)
        #expect(headers?["x-attestd-token-id"]?.isEmpty == false)
        #expect(gateway.cache.count == 1)
        #expect(allowedHeaders(decide(token)) == headers)
        #expect(gateway.cache.hitsAndMisses == (hits: 1, misses: 1))
        var text = ""
        gateway.cache.render(into: &text)
        #expect(text.contains("attestd_gateway_token_cache_total{result=\"hit\"} 1\n"))
        #expect(gateway.metrics.decisions.value(["default", Self.appID, "allowed", ""]) == 2)
    }

    @Test("refuses with 403 a token signed by another key, an expired one, and one that is not a JWT")
    func invalidTokens() {
        defer { pool.shutdown() }
        #expect(denial(decide(Self.token(keys: Self.foreignKeys)))?.reason == "tokenUnknownKey")
        #expect(denial(decide(Self.token(issuedSecondsAgo: 3_700)))?.reason == "tokenExpired")
        let garbage = denial(decide("a.b.c"))
        #expect(garbage?.reason == "tokenMalformed")
        #expect(garbage?.httpStatus == 403)
        // Signed by us, but for an app this gateway's project does not have: refused, and never cached.
        #expect(denial(decide(Self.token(app: "1:123456789012:ios:00000000000000aa")))?.reason == "unknownApp")
        #expect(gateway.cache.count == 0)
    }

    @Test("refuses an app the route does not allow")
    func appNotAllowed() {
        defer { pool.shutdown() }
        #expect(denial(decide(Self.token(), path: "/other/x"))?.reason == "appNotAllowed")
        #expect(allowedHeaders(decide(Self.token(app: Self.otherAppID), path: "/other/x")) != nil)
    }

    @Test("consumes a limited-use token on a limited-use route once, even when the cache knows it, and refuses a session token there")
    func limitedUse() {
        defer { pool.shutdown() }
        let token = Self.token(lifetime: .limitedUse)
        #expect(allowedHeaders(decide(token, path: "/items")) != nil)  // verified and cached, not consumed
        #expect(allowedHeaders(decide(token, method: "POST", path: "/redeem")) != nil)
        #expect(denial(decide(token, method: "POST", path: "/redeem"))?.reason == "alreadyConsumed")
        #expect(denial(decide(token, path: "/x", route: "redeem"))?.reason == "alreadyConsumed")
        // GET is not covered by the POST-only route: the default route does not consume.
        #expect(allowedHeaders(decide(token, method: "GET", path: "/redeem")) != nil)
        // A session token is not spent on a limited-use route: refused, and still good elsewhere.
        let session = Self.token()
        #expect(denial(decide(session, method: "POST", path: "/redeem"))?.reason == "notLimitedUse")
        #expect(allowedHeaders(decide(session, path: "/items")) != nil)
    }

    @Test("in monitor mode, lets a refused request through without identity headers and counts it")
    func monitorMode() {
        defer { pool.shutdown() }
        #expect(allowedHeaders(decide(nil, path: "/beta/a")) == [:])
        #expect(allowedHeaders(decide(Self.token(keys: Self.foreignKeys), path: "/beta/a")) == [:])
        #expect(gateway.metrics.decisions.value(["beta", "", "would_deny", "missingToken"]) == 1)
        #expect(gateway.metrics.decisions.value(["beta", "", "would_deny", "tokenUnknownKey"]) == 1)
        #expect(gateway.metrics.decisions.value(["beta", "", "denied", "missingToken"]) == 0)
    }

    @Test("a session token cannot reach a limited-use route by spelling its path another way", arguments: [
        "/V1/redeem", "/v1/REDEEM", "/v1;x/redeem", "/v1\\redeem", "/v1/redeem;jsessionid=1", "/v1/%52edeem",
        "/v1/x/..;/redeem", "/v1//redeem/", "/v1/./redeem?x=/", "/%76%31/redeem", "\\v1\\redeem",
    ])
    func spellings(path: String) {
        defer { pool.shutdown() }
        let refused = denial(decide(Self.token(), method: "POST", path: path))
        #expect(refused?.reason == "notLimitedUse", "\(path)")
        #expect(gateway.metrics.decisions.value(["v1-redeem", Self.appID, "denied", "notLimitedUse"]) == 1)
    }

    @Test("refuses with 400 a path that has no canonical form, even where a route is in monitor mode", arguments: [
        "/v1%2Fredeem", "/v1%5credeem", "/v1%3bx/redeem", "/v1/%2e%2e/v1/redeem", "/beta/%2E/x", "/v1/%2572edeem",
        "/v1/%zzredeem", "/v1/redeem%", "/v1/%00/redeem", "/v1/\u{01}redeem", "/../v1/redeem", "/beta/../../x", "v1/redeem",
        "", "/v1/%ff", "*",
    ])
    func uncanonical(path: String) {
        defer { pool.shutdown() }
        let refused = denial(decide(Self.token(), method: "POST", path: path))
        #expect(refused?.reason == "invalidPath", "\(path)")
        #expect(refused?.httpStatus == 400)
        #expect(refused?.status.code == .invalidArgument)
        #expect(gateway.metrics.decisions.value(["default", "", "denied", "invalidPath"]) == 1)
        // A route named by the sidecar does not depend on the path: it applies, whatever the path.
        #expect(denial(decide(Self.token(), method: "POST", path: path, route: "redeem"))?.reason == "notLimitedUse")
    }

    @Test("a case-sensitive route matches its own spelling only")
    func caseSensitiveRoute() {
        defer { pool.shutdown() }
        #expect(denial(decide(Self.token(), path: "/Exact/x"))?.reason == "notLimitedUse")
        #expect(allowedHeaders(decide(Self.token(), path: "/exact/x"))?["x-attestd-app-id"] == Self.appID)
        #expect(allowedHeaders(decide(Self.token(), path: "/EXACT/x")) != nil)
    }

    @Test("a default route in deny mode refuses what no route covers, with a valid token too; routes still apply")
    func denyingDefault() {
        defer { pool.shutdown() }
        let gateway = Self.gateway(pool: pool, defaultRoute: .init(name: "default", mode: .deny))
        let refused = denial(decide(Self.token(), path: "/unlisted", on: gateway))
        #expect(refused?.reason == "routeDenied")
        #expect(refused?.httpStatus == 403)
        #expect(denial(decide(nil, path: "/unlisted", on: gateway))?.reason == "routeDenied")
        #expect(allowedHeaders(decide(Self.token(), path: "/other/x", on: gateway)) == nil)
        #expect(allowedHeaders(decide(Self.token(app: Self.otherAppID), path: "/other/x", on: gateway)) != nil)
        #expect(gateway.metrics.decisions.value(["default", "", "denied", "routeDenied"]) == 2)
        // The default route's behaviour is unchanged unless configured: it lets a valid token through.
        #expect(allowedHeaders(decide(Self.token(), path: "/unlisted")) != nil)
    }

    @Test("refuses with 400 a token header sent twice (joined with a comma), valid tokens or not")
    func duplicateToken() {
        defer { pool.shutdown() }
        let token = Self.token()
        for joined in [token + "," + token, token + "," + Self.token(app: Self.otherAppID), token + ",", ",x"] {
            let refused = denial(decide(joined))
            #expect(refused?.reason == "duplicateToken")
            #expect(refused?.httpStatus == 400)
        }
        #expect(allowedHeaders(decide(token)) != nil)
    }

    @Test("says what it found: the route, the outcome and the verified token, limited-use or not")
    func facts() {
        defer { pool.shutdown() }
        let limited = decide(Self.token(lifetime: .limitedUse), method: "POST", path: "/redeem").facts
        #expect(limited.route == "redeem")
        #expect(limited.decision == "allowed")
        #expect(limited.reason == "")
        #expect(limited.token?.appID == Self.appID)
        #expect(limited.token.map(GatewayAuthorizer.isLimitedUse) == true)
        let session = decide(Self.token(), path: "/items").facts
        #expect(session.token.map(GatewayAuthorizer.isLimitedUse) == false)
        let would = decide(nil, path: "/beta/x").facts
        #expect((would.route, would.decision, would.reason) == ("beta", "would_deny", "missingToken"))
        let refused = decide(Self.token(), path: "/other/x").facts
        #expect((refused.route, refused.decision, refused.reason) == ("other", "denied", "appNotAllowed"))
    }

    @Test("an outage of the state store is an outage (503), not a denial; refusals are not outages")
    func outage() throws {
        defer { pool.shutdown() }
        // A real Redis store whose server is not there: every consume fails.
        let port = try #require(Self.closedPort())
        let store = RedisStateStore(RedisConfiguration(port: port, connectTimeoutMilliseconds: 200,
                                                       commandTimeoutMilliseconds: 200))
        defer { store.close() }
        let gateway = Self.gateway(pool: pool, store: store)
        let failed = denial(decide(Self.token(lifetime: .limitedUse), method: "POST", path: "/redeem", on: gateway))
        #expect(failed?.reason == "storeUnavailable")
        #expect(failed?.isOutage == true)
        #expect(failed?.httpStatus == 503)
        #expect(denial(decide(nil, on: gateway))?.isOutage == false)
        #expect(denial(decide(Self.token(), method: "POST", path: "/redeem", on: gateway))?.isOutage == false)
        // A route that consumes nothing needs no store.
        #expect(allowedHeaders(decide(Self.token(), on: gateway)) != nil)
    }

    /// A loopback port nothing listens on: bound, then closed.
    static func closedPort() -> Int? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { return nil }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
