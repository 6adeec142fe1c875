import CNghttp2
@testable import HTTP
import Testing

@Suite("HTTP/2 client request headers")
struct HTTP2RequestHeadersTests {
    @Test("the header block carries the fields in order, then each request's body length")
    func contentLength() {
        let headers = HTTP2RequestHeaders(
            [(":method", "POST"), (":path", "/p"), ("te", "trailers")], contentLength: true)
        for length in [1234, 0, 7] {
            let fields: [(String, String)] = headers.withFields(contentLength: length) { fields, count in
                (0..<count).map { index in
                    let field = fields[index]
                    return (String(decoding: UnsafeBufferPointer(start: field.name, count: field.namelen), as: UTF8.self),
                            String(decoding: UnsafeBufferPointer(start: field.value, count: field.valuelen), as: UTF8.self))
                }
            }
            #expect(fields.map(\.0) == [":method", ":path", "te", "content-length"])
            #expect(fields.last?.1 == "\(length)")
            #expect(fields.first { $0.0 == ":path" }?.1 == "/p")
        }
    }

    @Test("a header block without content-length has only the fields given")
    func noContentLength() {
        let headers = HTTP2RequestHeaders([(":method", "GET"), (":path", "/")], contentLength: false)
        #expect(headers.withFields(contentLength: 99) { _, count in count } == 2)
    }
}
