@testable import AppCheckService
import Testing
import Tokens

@Suite("Gateway route table and token cache")
struct GatewayPiecesTests {
    let table = GatewayRouteTable(routes: [
        .init(name: "redeem", methods: ["POST"], pathPrefix: "/v1/redeem", limitedUse: true),
        .init(name: "api", pathPrefix: "/v1/"),
        .init(name: "named-only"),
    ], fallback: .init(name: "default"))

    @Test("takes the first route whose method and path prefix match, else the default")
    func matching() {
        #expect(table.route(method: "POST", path: "/v1/redeem/42", name: nil).name == "redeem")
        #expect(table.route(method: "GET", path: "/v1/redeem/42", name: nil).name == "api")
        #expect(table.route(method: "GET", path: "/v2/x", name: nil).name == "default")
        #expect(table.route(method: "GET", path: "/", name: nil).name == "default")
    }

    @Test("a route named by the sidecar wins; an unknown name falls back to matching")
    func naming() {
        #expect(table.route(method: "GET", path: "/v2/x", name: "named-only").name == "named-only")
        #expect(table.route(method: "GET", path: "/v1/redeem", name: "redeem").name == "redeem")
        #expect(table.route(method: "POST", path: "/v1/redeem", name: "nonexistent").name == "redeem")
    }

    @Test("resolves the path as a server would before matching prefixes, so a route cannot be dodged")
    func dodges() {
        for path in ["/v1/redeem", "/v1/x/../redeem", "//v1//redeem", "/v1/./redeem/", "/v1/%72edeem", "/v1%2Fredeem",
                     "/v1/redeem?x=/v2", "/x/../../v1/redeem#f"] {
            #expect(table.route(method: "POST", path: path, name: nil).name == "redeem", "\(path)")
        }
        #expect(GatewayPath.normalized("/a/b/../c/./d/") == "/a/c/d/")
        #expect(GatewayPath.normalized("") == "/")
        #expect(GatewayPath.normalized("/plain/path.json") == "/plain/path.json")
        #expect(GatewayPath.normalized("relative/x") == "/relative/x")
        #expect(GatewayPath.normalized("/%zz/%4") == "/%zz/%4")
        #expect(GatewayPath.normalized("/caf%C3%A9") == "/café")
    }

    static func token(_ id: String, expiresAt: Int64) -> VerifiedAppCheckToken {
        VerifiedAppCheckToken(appID: "app", projectNumber: "1", audience: [], jti: id, kid: "k", issuedAt: 0, expiresAt: expiresAt)
    }

    @Test("keys tokens by their digest and misses an entry past its exp")
    func expiry() {
        let cache = VerifiedTokenCache(capacity: 8)
        cache.insert(TokenDigest(token: "a"), Self.token("a", expiresAt: 100))
        #expect(cache.lookup(TokenDigest(token: "a"), now: 99)?.jti == "a")
        #expect(cache.lookup(TokenDigest(token: "a"), now: 100) == nil)
        #expect(cache.lookup(TokenDigest(token: "b"), now: 0) == nil)
    }

    @Test("evicts the least recently used token of a full shard")
    func eviction() {
        let cache = VerifiedTokenCache(capacity: 3, shardCount: 1)
        for id in ["a", "b", "c"] { cache.insert(TokenDigest(token: id), Self.token(id, expiresAt: 100)) }
        #expect(cache.lookup(TokenDigest(token: "a"), now: 0) != nil)  // b is now the oldest
        cache.insert(TokenDigest(token: "d"), Self.token("d", expiresAt: 100))
        #expect(cache.count == 3)
        #expect(cache.lookup(TokenDigest(token: "b"), now: 0) == nil)
        for id in ["a", "c", "d"] { #expect(cache.lookup(TokenDigest(token: id), now: 0)?.jti == id) }
        // Re-inserting a held token refreshes it without growing.
        cache.insert(TokenDigest(token: "c"), Self.token("c2", expiresAt: 100))
        #expect(cache.count == 3)
        #expect(cache.lookup(TokenDigest(token: "c"), now: 0)?.jti == "c2")
    }

    @Test("holds nothing when its capacity is zero")
    func disabled() {
        let cache = VerifiedTokenCache(capacity: 0)
        cache.insert(TokenDigest(token: "a"), Self.token("a", expiresAt: 100))
        #expect(cache.lookup(TokenDigest(token: "a"), now: 0) == nil)
        #expect(cache.count == 0)
    }
}
