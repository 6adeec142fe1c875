@_spi(Testing) import HTTP
import Observability
import Testing

/// The socket-less server the HTTP fuzz target drives: the real connection code, bytes in and out in memory.
@Suite("memory server")
struct MemoryServerTests {
    struct Echo: HTTPHandler {
        func handle(_ request: HTTPRequest, responder: HTTPResponder, turn: LoopTurn) {
            responder.respond(HTTPResponse(status: 200, body: Array("\(request.method) \(request.path)".utf8)))
        }
    }

    @Test("answers an HTTP/1.1 request and counts its connection until it closes")
    func http1() throws {
        let server = try MemoryServer(
            configuration: HTTPServerConfiguration(listeners: []), handler: Echo(), logger: Logger(label: "memory"))
        let connection = server.openConnection()
        let output = connection.exchange(Array("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
        let text = String(decoding: output, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 200"))
        #expect(text.hasSuffix("GET /hello"))
        #expect(server.openConnections == 1)
        connection.close()
        #expect(connection.isClosed)
        #expect(server.openConnections == 0)
    }

    @Test("answers the HTTP/2 preface with the server's SETTINGS")
    func http2Preface() throws {
        let server = try MemoryServer(
            configuration: HTTPServerConfiguration(listeners: []), handler: Echo(), logger: Logger(label: "memory"))
        let connection = server.openConnection()
        let output = connection.exchange(Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + [0, 0, 0, 4, 0, 0, 0, 0, 0])
        // The first frame out is a SETTINGS frame (type 4) on stream 0.
        #expect(output.count >= 9)
        #expect(output.count >= 9 && output[3] == 4)
        #expect(output.count >= 9 && output[5..<9].allSatisfy { $0 == 0 })
    }
}

/// Inputs the HTTP fuzz target (Fuzz/HTTP2) found, kept as tests.
@Suite("HTTP fuzz regressions")
struct HTTPFuzzRegressionTests {
    struct Answer: HTTPHandler {
        func handle(_ request: HTTPRequest, responder: HTTPResponder, turn: LoopTurn) {
            responder.respond(HTTPResponse(status: request.bodyTooLarge ? 413 : 200))
        }
    }

    @Test("an HTTP/1.1 body over the limit, answered early, is counted once in the open-stream gauge")
    func earlyAnsweredBodyCountedOnce() throws {
        var configuration = HTTPServerConfiguration(listeners: [])
        configuration.maxRequestBodyBytes = 16
        let server = try MemoryServer(configuration: configuration, handler: Answer(), logger: Logger(label: "memory"))
        let connection = server.openConnection()
        // A chunk announced far larger than the limit, then more body than the limit: the request is answered
        // while its body is still arriving, and the connection closes after that response.
        let request = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5ffffff\r\n" + String(repeating: "x", count: 40)
        let output = connection.exchange(Array(request.utf8))
        #expect(String(decoding: output, as: UTF8.self).hasPrefix("HTTP/1.1 413"))
        connection.close()
        // It went to -1: the request was uncounted once as a message in progress and once as an answered slot.
        #expect(server.openStreams == 0)
    }
}
