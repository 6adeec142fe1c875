import Testing
import GRPC

@Suite("REST router")
struct RESTRouterTests {
    let router = RESTRouter<String>([
        (RESTBinding("GET", "/v1/{name=jwks}", hasBody: false), "jwks"),
        (RESTBinding("GET", "/v1beta/{name=jwks}", hasBody: false), "jwks"),
        (RESTBinding("POST", "/v1/{app=projects/*/apps/*}:generateAppAttestChallenge"), "challenge"),
        (RESTBinding("POST", "/v1/{app=projects/*/apps/*}:exchangeDebugToken"), "debug"),
        (RESTBinding("POST", "/v1beta/{project=projects/*}:verifyAppCheckToken"), "verify"),
        (RESTBinding("GET", "/healthz", hasBody: false), "health"),
    ])

    @Test("routes an app method and binds the app from the path")
    func appMethod() {
        guard case .matched(let target, let binding, let parameter) = router.route(
            method: "POST", target: "/v1/projects/attestd-dev/apps/1:123:ios:abc:generateAppAttestChallenge"
        ) else {
            Issue.record("not matched")
            return
        }
        #expect(target == "challenge")
        #expect(binding.hasBody)
        #expect(parameter == PathParameter(field: "app", value: "projects/attestd-dev/apps/1:123:ios:abc"))
    }

    @Test("routes the JWKS on v1 and v1beta and a project method")
    func jwksAndProject() {
        guard case .matched("jwks", _, let name) = router.route(method: "GET", target: "/v1beta/jwks") else {
            Issue.record("jwks not matched")
            return
        }
        #expect(name == PathParameter(field: "name", value: "jwks"))
        guard case .matched("verify", _, let project) = router.route(
            method: "POST", target: "/v1beta/projects/123456789012:verifyAppCheckToken"
        ) else {
            Issue.record("verify not matched")
            return
        }
        #expect(project?.value == "projects/123456789012")
        guard case .matched("health", _, nil) = router.route(method: "GET", target: "/healthz?full=1") else {
            Issue.record("health not matched")
            return
        }
    }

    @Test("answers method-not-allowed with the allowed methods")
    func wrongMethod() {
        guard case .methodNotAllowed(let allowed) = router.route(method: "POST", target: "/v1/jwks") else {
            Issue.record("expected methodNotAllowed")
            return
        }
        #expect(allowed == ["GET"])
    }

    @Test("answers INVALID_ARGUMENT for an app that is not projects/*/apps/*")
    func badResource() {
        guard case .invalidResource(let status) = router.route(
            method: "POST", target: "/v1/apps/1:123:ios:abc:generateAppAttestChallenge"
        ) else {
            Issue.record("expected invalidResource")
            return
        }
        #expect(status.code == .invalidArgument)
        #expect(status.message.contains("'app'"))
        #expect(status.message.contains("projects/*/apps/*"))
    }

    @Test("answers not found for unknown paths and verbs")
    func notFound() {
        for target in ["/v1/projects/p/apps/a:unknownVerb", "/v2/jwks", "/", "/v1/projects/p/apps/a", "nope"] {
            guard case .notFound = router.route(method: "POST", target: target) else {
                Issue.record("routed \(target)")
                continue
            }
        }
    }
}
