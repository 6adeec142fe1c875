@testable import AppCheckService
import Crypto
import Foundation
import GRPC
import Observability
import Storage
import Testing
import Tokens

/// The gateway's decisions with the real verifier, pool, cache and an in-memory state store.
@Suite("Gateway authorizer")
struct GatewayAuthorizerTests {
    static let appID = "1:123456789012:ios:0123456789abcdef"
    static let otherAppID = "1:123456789012:ios:00000000000000ff"
    static let keys = try! SigningKeySet(keys: [PrivateKey.generate(.rs256)])
    static let foreignKeys = try! SigningKeySet(keys: [PrivateKey.generate(.rs256)])

    let gateway: GatewayAuthorizer
    let pool = VerifierPool(threads: 1, capacity: 16)

    init() {
        var configuration = Configuration.Gateway()
        configuration.routes = [
            .init(name: "redeem", methods: ["POST"], pathPrefix: "/redeem", limitedUse: true),
            .init(name: "other", pathPrefix: "/other", apps: [Self.otherAppID]),
            .init(name: "beta", pathPrefix: "/beta", mode: .monitor),
        ]
        let app = Configuration.App(appID: Self.appID, teamID: "DEVTEAM123", bundleIDs: ["dev.example"], environment: .development)
        let other = Configuration.App(appID: Self.otherAppID, teamID: "DEVTEAM123", bundleIDs: ["dev.other"], environment: .development)
        let project = Configuration.Project(number: "123456789012", id: "attestd-dev", apps: [app, other])
        gateway = GatewayAuthorizer(
            configuration: configuration, project: "attestd-dev", apps: AppRegistry(projects: [project]),
            verifier: AppCheckTokenVerifier(keys: Self.keys), store: MemoryStateStore(clock: { Int64(time(nil)) }),
            pool: pool, logger: Logger(label: "test"))
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

    func decide(_ token: String?, method: String = "GET", path: String = "/items", route: String? = nil) -> GatewayDecision {
        let box = Box()
        gateway.authorize(GatewayRequest(method: method, path: path, routeName: route, token: token),
                          deadlineNanos: nil, requestID: { "test" }) { decision in
            box.decision = decision
            box.done.signal()
        }
        box.done.wait()
        return box.decision!
    }

    func denial(_ decision: GatewayDecision) -> GatewayDenial? {
        if case .deny(let denial) = decision { return denial }
        return nil
    }

    func allowedHeaders(_ decision: GatewayDecision) -> [String: String]? {
        if case .allow(let headers) = decision { return Dictionary(headers, uniquingKeysWith: { a, _ in a }) }
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
}
