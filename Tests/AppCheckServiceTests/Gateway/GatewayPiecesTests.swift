@testable import AppCheckService
import Config
import HTTP
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
    func matching() throws {
        #expect(try table.route(method: "POST", path: "/v1/redeem/42", name: nil).name == "redeem")
        #expect(try table.route(method: "GET", path: "/v1/redeem/42", name: nil).name == "api")
        #expect(try table.route(method: "GET", path: "/v2/x", name: nil).name == "default")
        #expect(try table.route(method: "GET", path: "/", name: nil).name == "default")
    }

    @Test("a route named by the sidecar wins; an unknown name falls back to matching")
    func naming() throws {
        #expect(try table.route(method: "GET", path: "/v2/x", name: "named-only").name == "named-only")
        #expect(try table.route(method: "GET", path: "/v1/redeem", name: "redeem").name == "redeem")
        #expect(try table.route(method: "POST", path: "/v1/redeem", name: "nonexistent").name == "redeem")
    }

    @Test("resolves the path as a server would before matching prefixes, so a route cannot be dodged")
    func dodges() throws {
        for path in ["/v1/redeem", "/v1/x/../redeem", "//v1//redeem", "/v1/./redeem/", "/v1/%72edeem", "/v1\\redeem",
                     "/v1;a=b/redeem", "/V1/Redeem", "/v1/REDEEM;x", "/v1/redeem?x=/v2", "/v1/x/..;/redeem#f"] {
            #expect(try table.route(method: "POST", path: path, name: nil).name == "redeem", "\(path)")
        }
    }

    @Test("canonicalizes: decoded, dot segments resolved, parameters and empty segments dropped, case kept")
    func canonical() throws {
        #expect(try GatewayPath.canonical("/a/b/../c/./d/") == "/a/c/d/")
        #expect(try GatewayPath.canonical("/a/b/..") == "/a/")
        #expect(try GatewayPath.canonical("/a/b/.") == "/a/b/")
        #expect(try GatewayPath.canonical("/plain/path.json") == "/plain/path.json")
        #expect(try GatewayPath.canonical("/caf%C3%A9") == "/café")
        #expect(try GatewayPath.canonical("/A;b/C;d=e;f/") == "/A/C/")
        #expect(try GatewayPath.canonical("/a\\b//c") == "/a/b/c")
        #expect(try GatewayPath.canonical("/100%25") == "/100%")
        #expect(try GatewayPath.canonical("/%2e%2Ehidden/x") == "/..hidden/x")
        #expect(try GatewayPath.canonical("/?a") == "/")
        #expect(GatewayPath.folded("/V1/CAFÉ") == "/v1/café")
    }

    @Test("refuses a path with no single reading, each for its reason")
    func refusals() {
        let cases: [(String, GatewayPath.Refusal)] = [
            ("", .notAbsolute), ("relative/x", .notAbsolute), ("*", .notAbsolute),
            ("/%zz", .invalidEscape), ("/%4", .invalidEscape), ("/a%", .invalidEscape),
            ("/a\u{7f}", .controlByte), ("/a%0a", .controlByte), ("/a%00b", .controlByte), ("/a\tb", .controlByte),
            ("/a%2Fb", .encodedSeparator), ("/a%5Cb", .encodedSeparator), ("/a%3Bb", .encodedSeparator),
            ("/a/%2e%2e/b", .encodedDotSegment), ("/a/.%2E/b", .encodedDotSegment), ("/a/%2E", .encodedDotSegment),
            ("/a/%2572", .doubleEncoding), ("/a%ff", .notUTF8), ("/..", .aboveRoot), ("/a/../../b", .aboveRoot),
        ]
        for (path, refusal) in cases {
            #expect(throws: refusal, "\(path)") { try GatewayPath.canonical(path) }
        }
    }

    @Test("a case-sensitive route opts out of matching without regard to case")
    func caseSensitivity() throws {
        let table = GatewayRouteTable(routes: [.init(name: "exact", pathPrefix: "/Admin", caseSensitive: true),
                                               .init(name: "folded", pathPrefix: "/Admin")], fallback: .init(name: "default"))
        #expect(try table.route(method: "GET", path: "/Admin/x", name: nil).name == "exact")
        #expect(try table.route(method: "GET", path: "/admin/x", name: nil).name == "folded")
        #expect(try table.route(method: "GET", path: "/ADMIN", name: nil).name == "folded")
        #expect(try table.route(method: "GET", path: "/Adm", name: nil).name == "default")
    }

    @Test("joins a header field sent twice with a comma, as Envoy does, so that a token sent twice is seen")
    func joinedValues() {
        let headers = HTTPHeaders([("X-Firebase-AppCheck", "a.b.c"), ("accept", "*/*"), ("x-firebase-appcheck", "d.e.f")])
        #expect(ServiceRouter.joinedValues(headers, "x-firebase-appcheck") == "a.b.c,d.e.f")
        #expect(ServiceRouter.joinedValues(headers, "accept") == "*/*")
        #expect(ServiceRouter.joinedValues(headers, "x-missing") == nil)
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
