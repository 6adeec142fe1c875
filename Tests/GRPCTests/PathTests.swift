import Testing
import GRPC

@Suite("paths")
struct PathTests {
    @Test("parses gRPC method paths")
    func grpcPaths() {
        let path = GRPCMethodPath("/google.firebase.appcheck.v1.TokenExchangeService/GenerateAppAttestChallenge")
        #expect(path?.service == "google.firebase.appcheck.v1.TokenExchangeService")
        #expect(path?.method == "GenerateAppAttestChallenge")
        #expect(path?.description == "/google.firebase.appcheck.v1.TokenExchangeService/GenerateAppAttestChallenge")
        for bad in ["", "/", "//", "/svc", "/svc/", "//m", "svc/m", "/svc/m/x", "/svc/m?x=1"] {
            #expect(GRPCMethodPath(bad) == nil, "\(bad)")
        }
    }

    @Test("takes the custom verb after the last colon, as app ids hold colons")
    func verbAfterLastColon() {
        let path = RESTPath("/v1/projects/attestd-dev/apps/1:123456789012:ios:0123456789abcdef:generateAppAttestChallenge")
        #expect(path?.segments == ["v1", "projects", "attestd-dev", "apps", "1:123456789012:ios:0123456789abcdef"])
        #expect(path?.verb == "generateAppAttestChallenge")
    }

    @Test("strips the query string before looking for the verb")
    func query() {
        let path = RESTPath("/v1/projects/p/apps/1:2:ios:ab:exchangeDebugToken?key=AIza:xyz&alt=json")
        #expect(path?.verb == "exchangeDebugToken")
        #expect(path?.query == "key=AIza:xyz&alt=json")
        #expect(path?.segments.last == "1:2:ios:ab")
    }

    @Test("reads paths without a verb and with percent-encoded colons")
    func noVerbAndEncoding() {
        #expect(RESTPath("/v1/jwks")?.segments == ["v1", "jwks"])
        #expect(RESTPath("/v1/jwks")?.verb == nil)
        #expect(RESTPath("/v1/jwks/")?.segments == ["v1", "jwks"])
        let encoded = RESTPath("/v1/projects/p/apps/1%3A2%3Aios%3Aab:exchangeDebugToken")
        #expect(encoded?.segments.last == "1:2:ios:ab")
        #expect(encoded?.verb == "exchangeDebugToken")
        #expect(RESTPath("/v1beta/projects/attestd-dev:verifyAppCheckToken")?.verb == "verifyAppCheckToken")
        #expect(RESTPath("v1/jwks") == nil)
        #expect(RESTPath("/v1/%zz") == nil)
    }

    @Test("checks app and project resource names")
    func resourceNames() throws {
        let app = try AppResourceName(parsing: "projects/123456789012/apps/1:123456789012:ios:0123456789abcdef")
        #expect(app.project == "123456789012")
        #expect(app.appID == "1:123456789012:ios:0123456789abcdef")
        #expect(app.description == "projects/123456789012/apps/1:123456789012:ios:0123456789abcdef")
        #expect(try ProjectResourceName(parsing: "projects/attestd-dev").project == "attestd-dev")
        for bad in ["", "projects/p", "projects//apps/a", "projects/p/apps/", "project/p/apps/a", "projects/p/apps/a/x"] {
            do {
                _ = try AppResourceName(parsing: bad)
                Issue.record("accepted \(bad)")
            } catch {
                #expect(error.code == .invalidArgument)
                #expect(error.message.contains("'app'"))
            }
        }
        #expect(throws: GRPCStatus.self) { try ProjectResourceName(parsing: "projects/p/apps/a") }
    }
}
