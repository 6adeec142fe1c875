@testable import AppCheckService
import Config
import Crypto
import GRPC
import HTTP
import Observability
import Testing

@Suite("Caller credentials of the backend RPCs and the KeyService")
struct CallerCredentialsTests {
    let credentials = CallerCredentials(callers: [
        .init(name: "ops", role: .operator, tokenHashes: [SHA256.hash(Array("ops-token".utf8))]),
        .init(name: "shop", role: .backend, projects: ["123456789012", "shop-project"],
              tokenHashes: [SHA256.hash(Array("shop-token".utf8))], certificateNames: ["backend.shop.internal"]),
    ])

    func context(_ authorization: String? = nil, certificateNames: [String]? = nil) -> RPCContext {
        RPCContext(requestID: "t", deadlineNanos: nil, logger: Logger(label: "test"), authorization: authorization,
                   clientCertificate: certificateNames.map { ClientCertificate(names: $0, subject: "CN=test") })
    }

    /// The code `body` fails with, nil when it succeeds.
    func code<Result>(_ body: () throws -> Result) -> GRPCStatus.Code? {
        do {
            _ = try body()
            return nil
        } catch {
            return (error as? GRPCStatus)?.code ?? .unknown
        }
    }

    @Test("a bearer token names its caller; a client certificate names the caller listing one of its names")
    func authenticates() throws {
        #expect(try credentials.authenticate(context("Bearer ops-token")).name == "ops")
        #expect(try credentials.authenticate(context("bearer shop-token")).name == "shop")
        #expect(try credentials.authenticate(context(certificateNames: ["other", "backend.shop.internal"])).name == "shop")
    }

    @Test("no credential, a wrong token or a non-bearer scheme is UNAUTHENTICATED; an unknown certificate PERMISSION_DENIED")
    func refusesUnknown() {
        #expect(code { try credentials.authenticate(context()) } == .unauthenticated)
        #expect(code { try credentials.authenticate(context("Bearer shop-tokeN")) } == .unauthenticated)
        #expect(code { try credentials.authenticate(context("Basic c2hvcC10b2tlbg==")) } == .unauthenticated)
        #expect(code { try credentials.authenticate(context("Bearer ")) } == .unauthenticated)
        #expect(code { try credentials.authenticate(context(certificateNames: ["device.example"])) } == .permissionDenied)
    }

    @Test("an operator may manage keys and act for no project; a backend acts for its own projects only")
    func scopes() {
        #expect(code { try credentials.authorize(context("Bearer ops-token"), .manageKeys) } == nil)
        #expect(code { try credentials.authorize(context("Bearer ops-token"), .actForProject("shop-project")) } == .permissionDenied)
        #expect(code { try credentials.authorize(context("Bearer shop-token"), .manageKeys) } == .permissionDenied)
        #expect(code { try credentials.authorize(context("Bearer shop-token"), .actForProject("123456789012")) } == nil)
        #expect(code { try credentials.authorize(context("Bearer shop-token"), .actForProject("shop-project")) } == nil)
        #expect(code { try credentials.authorize(context("Bearer shop-token"), .actForProject("other-project")) } == .permissionDenied)
        #expect(code { try credentials.authorize(context(), .actForProject("shop-project")) } == .unauthenticated)
    }

    @Test("a backend RPC on an app name: the caller first, then the name's form, then its project")
    func backendAppNames() {
        let shop = context("Bearer shop-token")
        #expect(code { try credentials.authorizeBackend(shop, appName: "projects/shop-project/apps/1:1:ios:1") } == nil)
        #expect(code { try credentials.authorizeBackend(shop, appName: "projects/other/apps/1:1:ios:1") } == .permissionDenied)
        #expect(code { try credentials.authorizeBackend(shop, appName: "apps/1:1:ios:1") } == .invalidArgument)
        #expect(code { try credentials.authorizeBackend(context(), appName: "garbage") } == .unauthenticated)
    }

    @Test("no callers configured: every call is refused")
    func noCallers() {
        #expect(code { try CallerCredentials(callers: []).authorize(context("Bearer ops-token"), .manageKeys) } == .unauthenticated)
    }
}

@Suite("Callers and listener roles in the configuration")
struct CallerConfigurationTests {
    func parse(_ extra: String, listener: String = #"{"address":"127.0.0.1","port":8080}"#) throws(ConfigurationError) -> Configuration {
        let text = """
            {"listeners":[\(listener)],\(extra)
             "keys":{"challengeKey":"k/c.json","artifactKey":"k/a.json","tokenSigning":["k/t.pem"]},
             "projects":[{"number":"123456789012","id":"attestd-dev","apps":[
                {"appId":"1:123456789012:ios:0123456789abcdef","teamId":"DEVTEAM123","bundleIds":["dev.attestd.example"],"environment":"development"}]}]}
            """
        return try Configuration.parse(json: Array(text.utf8), baseDirectory: "/etc/attestd")
    }

    func problems(_ extra: String, listener: String = #"{"address":"127.0.0.1","port":8080}"#) -> [String] {
        do throws(ConfigurationError) {
            _ = try parse(extra, listener: listener)
            return []
        } catch {
            return error.problems
        }
    }

    static let hash = String(repeating: "ab", count: 32)
    static let otherHash = String(repeating: "cd", count: 32)

    @Test("a backend's projects are held by number and id; admin.tokenHashes still names an operator")
    func readsCallers() throws {
        let configuration = try parse("""
            "admin":{"tokenHashes":["\(Self.otherHash)"]},
            "callers":[{"name":"shop","role":"backend","projects":["attestd-dev"],"tokenHashes":["\(Self.hash)"],
                        "certificateNames":["backend.internal"]}],
            """)
        #expect(configuration.callers.count == 2)
        #expect(configuration.callers[0].projects == ["123456789012", "attestd-dev"])
        #expect(configuration.callers[0].certificateNames == ["backend.internal"])
        #expect(configuration.callers[1].name == "admin" && configuration.callers[1].role == .operator)
    }

    @Test("refuses a backend without projects, an unknown project, an operator with projects, a caller with no credential, a shared token")
    func refusesBadCallers() {
        let cases: [(String, String)] = [
            (#""callers":[{"name":"b","role":"backend","tokenHashes":["\#(Self.hash)"]}],"#, "callers[0].projects"),
            (#""callers":[{"name":"b","role":"backend","projects":["nope"],"tokenHashes":["\#(Self.hash)"]}],"#, "callers[0].projects[0]"),
            (#""callers":[{"name":"o","role":"operator","projects":["attestd-dev"],"tokenHashes":["\#(Self.hash)"]}],"#, "callers[0].projects"),
            (#""callers":[{"name":"o","role":"operator"}],"#, "callers[0].name"),
            (#""callers":[{"name":"o","role":"root","tokenHashes":["\#(Self.hash)"]}],"#, "callers[0].role"),
            (#""callers":[{"name":"o","role":"operator","tokenHashes":["\#(Self.hash)"]},{"name":"p","role":"operator","tokenHashes":["\#(Self.hash)"]}],"#, "callers"),
            (#""callers":[{"name":"o","role":"operator","tokenHashes":["abc"]}],"#, "callers[0].tokenHashes[0]"),
        ]
        for (extra, field) in cases {
            let found = problems(extra)
            #expect(found.contains { $0.hasPrefix(field + ":") }, "\(extra) → \(found)")
        }
    }

    @Test("a listener's role or services list decides what it serves; neither serves everything")
    func listenerRoles() throws {
        #expect(try parse("").listeners[0].services == .all)
        #expect(try parse("", listener: #"{"port":1,"role":"public"}"#).listeners[0].services == .publicRole)
        #expect(try parse("", listener: #"{"port":1,"role":"internal"}"#).listeners[0].services == .internalRole)
        #expect(try parse("", listener: #"{"port":1,"services":["metrics","health"]}"#).listeners[0].services == [.metrics, .health])
        #expect(ListenerServices.publicRole.isDisjoint(with: [.verify, .deviceState, .keys, .gateway, .metrics]))
        #expect(problems("", listener: #"{"port":1,"role":"admin"}"#) == ["listeners[0].role: must be public or internal"])
        #expect(problems("", listener: #"{"port":1,"role":"public","services":["jwks"]}"#).count == 1)
        #expect(problems("", listener: #"{"port":1,"services":["twoBits"]}"#).first?.hasPrefix("listeners[0].services[0]") == true)
    }
}
