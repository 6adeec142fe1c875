import Basics
import Testing
@testable import attestd_bench

@Suite("Encodings")
struct EncodingTests {
    @Test("a JWT's algorithm is read from its header")
    func jwtAlgorithm() {
        let es256 = Base64.url.encode(Array(#"{"alg":"ES256","typ":"JWT"}"#.utf8))
        let rs256 = Base64.url.encode(Array(#"{"alg":"RS256","typ":"JWT"}"#.utf8))
        #expect(Bench.algorithm(ofJWT: es256 + ".e30.c2ln") == "ES256")
        #expect(Bench.algorithm(ofJWT: rs256 + ".e30.c2ln") == "RS256")
    }

    @Test("the report's JSON escapes quotes, backslashes and control characters")
    func jsonEscapes() {
        var out = JSONOut()
        out.object {
            $0.field("a\"b", "x\\y\n\u{1}")
            $0.field("n", 3)
            $0.key("list")
            $0.array { $0.value(1.5); $0.value(.infinity) }
        }
        #expect(out.text == #"{"a\"b":"x\\y\n\u0001","n":3,"list":[1.5,null]}"#)
    }

    @Test("a gRPC endpoint's request headers name the method's path and ask for trailers; a REST one's do not")
    func requestHeaders() {
        let grpc = Endpoint(framing: .grpc, app: "projects/1/apps/a", authority: "h").headers(.challenge).fields
        #expect(grpc.first { $0.name == ":path" }?.value
            == "/google.firebase.appcheck.v1.TokenExchangeService/GenerateAppAttestChallenge")
        #expect(grpc.first { $0.name == "te" }?.value == "trailers")
        #expect(grpc.first { $0.name == "content-type" }?.value == "application/grpc")
        let rest = Endpoint(framing: .rest, app: "projects/1/apps/a", authority: "h").headers(.assertion).fields
        #expect(rest.first { $0.name == ":path" }?.value == "/v1/projects/1/apps/a:exchangeAppAttestAssertion")
        #expect(!rest.contains { $0.name == "te" })
    }
}
