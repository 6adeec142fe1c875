import Config
import Testing

@Suite("Gateway configuration")
struct GatewayConfigurationTests {
    static let apps = """
        {"appId":"1:123456789012:ios:0123456789abcdef","teamId":"DEVTEAM123","bundleIds":["dev.attestd.example"],"environment":"development"}
        """

    func parse(gateway: String?, projects: String? = nil) throws(ConfigurationError) -> Configuration {
        let projects = projects ?? """
            [{"number":"123456789012","id":"attestd-dev","apps":[\(Self.apps)]}]
            """
        let text = """
            {"listeners":[{"port":8080}],
             "keys":{"challengeKey":"c.json","artifactKey":"a.json","tokenSigning":["t.pem"]},
             "projects":\(projects)\(gateway.map { ",\"gateway\":" + $0 } ?? "")}
            """
        return try Configuration.parse(json: Array(text.utf8), baseDirectory: "/etc/attestd")
    }

    @Test("defaults: Firebase's token header, the identity headers, /v1/authz, one enforcing default route")
    func defaults() throws {
        let gateway = try parse(gateway: nil).gateway
        #expect(gateway.project == nil)
        #expect(gateway.tokenHeader == "x-firebase-appcheck")
        #expect(gateway.appIDHeader == "x-attestd-app-id")
        #expect(gateway.tokenIDHeader == "x-attestd-token-id")
        #expect(gateway.authRequestPath == "/v1/authz")
        #expect(gateway.routes.isEmpty)
        #expect(gateway.defaultRoute.mode == .enforce)
        #expect(!gateway.defaultRoute.limitedUse)
    }

    @Test("reads routes with their methods, prefixes, apps, modes and limited use")
    func routes() throws {
        let gateway = try parse(gateway: """
            {"project":"attestd-dev","tokenHeader":"X-App-Check","authRequestPath":"/authz","routes":[
              {"name":"redeem","methods":["post"],"pathPrefix":"/redeem","limitedUse":true,
               "apps":["1:123456789012:ios:0123456789abcdef"]},
              {"name":"beta","pathPrefix":"/beta","mode":"monitor"}],
             "defaultRoute":{"mode":"monitor"}}
            """).gateway
        #expect(gateway.project == "attestd-dev")
        #expect(gateway.tokenHeader == "x-app-check")
        #expect(gateway.authRequestPath == "/authz")
        #expect(gateway.routes.map(\.name) == ["redeem", "beta"])
        #expect(gateway.routes[0].methods == ["POST"])
        #expect(gateway.routes[0].limitedUse)
        #expect(gateway.routes[0].apps == ["1:123456789012:ios:0123456789abcdef"])
        #expect(gateway.routes[1].mode == .monitor)
        #expect(gateway.defaultRoute.mode == .monitor)
    }

    @Test("reports unknown apps, bad modes, bad prefixes, duplicate names and an unknown project, each by field")
    func problems() {
        do {
            _ = try parse(gateway: """
                {"project":"nope","authRequestPath":"authz","routes":[
                  {"name":"a","pathPrefix":"x","apps":["1:1:ios:ff"],"mode":"audit"},{"name":"a"}]}
                """)
            Issue.record("accepted an invalid gateway section")
        } catch {
            let text = error.description
            #expect(text.contains("gateway.project: names no configured project"))
            #expect(text.contains("gateway.authRequestPath"))
            #expect(text.contains("gateway.routes[0].pathPrefix: must start with /"))
            #expect(text.contains("1:1:ios:ff is not a configured app"))
            #expect(text.contains("gateway.routes[0].mode: must be enforce or monitor or deny"))
            #expect(text.contains("route name a appears more than once"))
        }
    }

    @Test("requires the project when several are configured")
    func severalProjects() throws {
        let projects = """
            [{"number":"123456789012","id":"attestd-dev","apps":[\(Self.apps)]},{"number":"222","id":"other","apps":[
              {"appId":"1:222:ios:ab","teamId":"DEVTEAM123","bundleIds":["x.y"],"environment":"development"}]}]
            """
        #expect(throws: ConfigurationError.self) { try parse(gateway: "{}", projects: projects) }
        #expect(try parse(gateway: "{\"project\":\"other\"}", projects: projects).gateway.project == "other")
    }

    @Test("reads caseSensitive and a deny mode, and keeps prefixes in canonical form")
    func matchingOptions() throws {
        let gateway = try parse(gateway: """
            {"routes":[{"name":"admin","pathPrefix":"/Admin//x/./","caseSensitive":true},{"name":"api","pathPrefix":"/api"}],
             "defaultRoute":{"mode":"deny"}}
            """).gateway
        #expect(gateway.routes[0].caseSensitive)
        #expect(gateway.routes[0].pathPrefix == "/Admin/x/")
        #expect(!gateway.routes[1].caseSensitive)
        #expect(gateway.defaultRoute.mode == .deny)
        #expect(try parse(gateway: nil).gateway.defaultRoute.mode == .enforce)
    }

    @Test("refuses a prefix with no canonical form or with a query, and caseSensitive on the default route")
    func matchingProblems() {
        do {
            _ = try parse(gateway: """
                {"routes":[{"name":"a","pathPrefix":"/a%2Fb"},{"name":"b","pathPrefix":"/b?x=1"},
                           {"name":"c","pathPrefix":"/c","caseSensitive":"yes"}],
                 "defaultRoute":{"caseSensitive":true}}
                """)
            Issue.record("accepted an invalid gateway section")
        } catch {
            let text = error.description
            #expect(text.contains("gateway.routes[0].pathPrefix: has no canonical form"))
            #expect(text.contains("gateway.routes[1].pathPrefix: must be a path without a query or fragment"))
            #expect(text.contains("gateway.routes[2].caseSensitive"))
            #expect(text.contains("gateway.defaultRoute"))
        }
    }
}
