import HTTP
import Testing

@Suite("HTTPHeaders")
struct HTTPHeadersTests {
    @Test("lowercases names and finds the first value case-insensitively")
    func lookup() {
        var headers = HTTPHeaders([("Content-Type", "application/grpc"), ("X-Tag", "one")])
        headers.add("x-tag", "two")
        #expect(headers["content-type"] == "application/grpc")
        #expect(headers["CONTENT-TYPE"] == "application/grpc")
        #expect(headers["x-tag"] == "one")
        #expect(headers["missing"] == nil)
        #expect(headers.map(\.name) == ["content-type", "x-tag", "x-tag"])
        #expect(headers.map(\.value) == ["application/grpc", "one", "two"])
        #expect(headers.count == 3)
    }
}
