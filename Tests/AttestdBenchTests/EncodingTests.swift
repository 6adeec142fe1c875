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

    @Test("request headers carry the body's length")
    func contentLength() {
        let headers = RequestHeaders(path: "/p", authority: "h", contentType: "application/grpc", grpc: true)
        let fields: [(String, String)] = headers.withFields(contentLength: 1234) { fields, count in
            (0..<count).map { index in
                let field = fields[index]
                return (String(decoding: UnsafeBufferPointer(start: field.name, count: field.namelen), as: UTF8.self),
                        String(decoding: UnsafeBufferPointer(start: field.value, count: field.valuelen), as: UTF8.self))
            }
        }
        #expect(fields.first { $0.0 == "content-length" }?.1 == "1234")
        #expect(fields.first { $0.0 == "te" }?.1 == "trailers")
        #expect(fields.first { $0.0 == ":path" }?.1 == "/p")
    }
}
