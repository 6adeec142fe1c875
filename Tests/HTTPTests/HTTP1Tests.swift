import Glibc
@testable import HTTP
import Testing

@Suite("HTTP/1.1 through http_parser")
struct HTTP1Tests {
    private func responses(_ socket: borrowing TestSocket, count: Int) -> (responses: [HTTP1TestResponse], closed: Bool) {
        let (bytes, closed) = socket.receive { HTTP1Responses.parse($0).count >= count }
        return (HTTP1Responses.parse(bytes), closed)
    }

    @Test("serves two requests on one keep-alive connection")
    func keepAlive() throws {
        try TestServer.run { server in
            let socket = try TestSocket(port: server.port)
            socket.send("GET /first HTTP/1.1\r\nHost: example.test\r\n\r\n")
            let first = responses(socket, count: 1).responses
            socket.send("GET /second?q=1 HTTP/1.1\r\nHost: example.test\r\nX-Custom: Yes\r\n\r\n")
            let second = responses(socket, count: 1).responses
            #expect(first.first?.status == 200)
            #expect(first.first?.body == "/first")
            #expect(first.first?.headers["connection"] == nil)
            #expect(second.first?.body == "/second?q=1")
            let request = try #require(server.handler.received.last)
            #expect(request.version == .http1_1)
            #expect(request.authority == "example.test")
            #expect(request.headers["x-custom"] == "Yes")
            #expect(request.headers["X-Custom"] == "Yes")
            #expect(server.server.openConnections == 1)
        }
    }

    @Test("a client that half-closes after its requests gets every answer, the last with Connection: close")
    func halfClose() throws {
        try TestServer.run { server in
            let socket = try TestSocket(port: server.port)
            // The first is answered from another thread after the client's end of file has arrived.
            socket.send("GET /slow/100 HTTP/1.1\r\nHost: a\r\n\r\nGET /second HTTP/1.1\r\nHost: a\r\n\r\n")
            _ = Glibc.shutdown(socket.fd, Int32(SHUT_WR))
            let (bytes, closed) = socket.receive()
            let answers = HTTP1Responses.parse(bytes)
            #expect(answers.map(\.body) == ["slow 100", "/second"])
            #expect(answers.first?.headers["connection"] == nil)
            #expect(answers.last?.headers["connection"] == "close")
            #expect(closed)
        }
    }

    @Test("a client that half-closes with nothing owed, or mid-request, is closed")
    func halfCloseOwedNothing() throws {
        try TestServer.run { server in
            for sent in ["", "GET /half HTTP/1.1\r\nHost: a\r\n"] {
                let socket = try TestSocket(port: server.port)
                socket.send(sent)
                _ = Glibc.shutdown(socket.fd, Int32(SHUT_WR))
                let (bytes, closed) = socket.receive()
                #expect(bytes.isEmpty)
                #expect(closed)
            }
            #expect(server.handler.received.isEmpty)
        }
    }

    @Test("reads a Content-Length body")
    func contentLengthBody() throws {
        try TestServer.run { server in
            let socket = try TestSocket(port: server.port)
            socket.send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\nhello")
            socket.send(" world")
            let response = try #require(responses(socket, count: 1).responses.first)
            #expect(response.body == "hello world")
            #expect(response.headers["x-method"] == "POST")
            #expect(response.headers["content-length"] == "11")
        }
    }

    @Test("reads a chunked body")
    func chunkedBody() throws {
        try TestServer.run { server in
            let socket = try TestSocket(port: server.port)
            socket.send("POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n")
            socket.send("6\r\n world\r\n0\r\n\r\n")
            let response = try #require(responses(socket, count: 1).responses.first)
            #expect(response.body == "hello world")
        }
    }

    @Test("answers pipelined requests in request order even when the handler answers out of order")
    func pipelining() throws {
        try TestServer.run { server in
            let socket = try TestSocket(port: server.port)
            socket.send("GET /slow/200 HTTP/1.1\r\nHost: a\r\n\r\nGET /fast HTTP/1.1\r\nHost: a\r\n\r\nGET /async HTTP/1.1\r\nHost: a\r\n\r\n")
            let received = responses(socket, count: 3).responses
            #expect(received.map(\.body) == ["slow 200", "/fast", "async"])
        }
    }

    @Test("a long pipelined burst is taken a few requests per loop turn, all answered in order")
    func pipelinedBurstYields() throws {
        let harness = try HTTP2InMemoryTests.Harness()
        let count = 5 * HTTP1Session.requestsPerTurn + 3
        let burst = (0..<count).map { "GET /r/\($0) HTTP/1.1\r\nHost: a\r\n\r\n" }.joined()
        harness.connection.receive(memory: Array(burst.utf8))
        // One read's worth of requests is handed over in slices, one per loop turn, so other connections of the
        // loop are served in between.
        #expect(harness.handler.received.count == HTTP1Session.requestsPerTurn)
        harness.loop.runPendingWork()
        #expect(harness.handler.received.count == 2 * HTTP1Session.requestsPerTurn)
        for _ in 0..<10 { harness.loop.runPendingWork() }
        #expect(harness.handler.received.count == count)
        let answered = HTTP1Responses.parse(harness.output.take())
        #expect(answered.map(\.body) == (0..<count).map { "/r/\($0)" })
    }

    @Test("answers Expect: 100-continue with an interim response before the body is sent")
    func expectContinue() throws {
        try TestServer.run { server in
            let socket = try TestSocket(port: server.port)
            socket.send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
            let interim = socket.receive { $0.count >= 25 }.bytes
            #expect(String(decoding: interim, as: UTF8.self) == "HTTP/1.1 100 Continue\r\n\r\n")
            socket.send("body")
            #expect(responses(socket, count: 1).responses.first?.body == "body")
        }
    }

    @Test("a HEAD response carries the length but no body")
    func head() throws {
        try TestServer.run { server in
            let socket = try TestSocket(port: server.port)
            socket.send("HEAD /abc HTTP/1.1\r\nHost: a\r\n\r\nGET /next HTTP/1.1\r\nHost: a\r\n\r\n")
            let text = String(decoding: socket.receive { String(decoding: $0, as: UTF8.self).hasSuffix("/next") }.bytes, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(text.contains("content-length: 4\r\n"))
            #expect(!text.contains("/abc"))
            #expect(text.hasSuffix("content-length: 5\r\n\r\n/next"))
        }
    }

    @Test("an Upgrade: h2c request is answered over HTTP/1.1 and the connection stays usable")
    func upgradeIgnored() throws {
        try TestServer.run { server in
            let socket = try TestSocket(port: server.port)
            socket.send("GET /up HTTP/1.1\r\nHost: a\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n\r\n")
            let first = responses(socket, count: 1).responses
            // Split inside the headers: the parser's upgrade flag from the first request is still set here.
            socket.send("POST /echo HTTP/1.1\r\nHo")
            waitBriefly(milliseconds: 20)
            socket.send("st: a\r\nContent-Length: 6\r\n\r\nsplit!")
            let second = responses(socket, count: 1).responses
            #expect(first.first?.status == 200)
            #expect(first.first?.body == "/up")
            #expect(second.first?.body == "split!")
        }
    }

    @Test("a malformed request gets 400 and the connection is closed")
    func malformed() throws {
        try TestServer.run { server in
            let socket = try TestSocket(port: server.port)
            socket.send("GET / HTTP/1.1\r\nHost: a\r\n\r\nNOT A REQUEST\r\n\r\n")
            let (bytes, closed) = socket.receive()
            let received = HTTP1Responses.parse(bytes)
            #expect(received.map(\.status) == [200, 400])
            #expect(received.last?.headers["connection"] == "close")
            #expect(closed)
        }
    }

    @Test("headers over the limit get 431 and the connection is closed")
    func headersTooLarge() throws {
        try TestServer.run(configure: { $0.maxHeaderListBytes = 1024 }) { server in
            let socket = try TestSocket(port: server.port)
            socket.send("GET / HTTP/1.1\r\nHost: a\r\nX-Big: \(String(repeating: "b", count: 2000))\r\n\r\n")
            let (bytes, closed) = socket.receive()
            #expect(HTTP1Responses.parse(bytes).map(\.status) == [431])
            #expect(closed)
            #expect(server.handler.received.isEmpty)
        }
    }

    @Test("more header fields than allowed get 431 and the connection is closed")
    func tooManyHeaderFields() throws {
        try TestServer.run(configure: { $0.maxHeaderFields = 10 }) { server in
            let socket = try TestSocket(port: server.port)
            let fields = (0..<20).map { "X-\($0): v\r\n" }.joined()
            socket.send("GET / HTTP/1.1\r\nHost: a\r\n\(fields)\r\n")
            let (bytes, closed) = socket.receive()
            #expect(HTTP1Responses.parse(bytes).map(\.status) == [431])
            #expect(closed)
            #expect(server.handler.received.isEmpty)
        }
    }

    @Test("a body over the limit reaches the handler as bodyTooLarge, then the connection closes")
    func bodyTooLarge() throws {
        try TestServer.run(configure: { $0.maxRequestBodyBytes = 100 }) { server in
            let socket = try TestSocket(port: server.port)
            socket.send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 500\r\n\r\n" + String(repeating: "x", count: 500))
            let (bytes, closed) = socket.receive()
            let response = try #require(HTTP1Responses.parse(bytes).first)
            #expect(response.headers["x-body-too-large"] == "true")
            #expect(response.body.isEmpty)
            #expect(closed)
            #expect(server.handler.received.first?.bodyTooLarge == true)
        }
    }

    @Test("Connection: close is honoured after the response")
    func connectionClose() throws {
        try TestServer.run { server in
            let socket = try TestSocket(port: server.port)
            socket.send("GET /bye HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\nGET /ignored HTTP/1.1\r\nHost: a\r\n\r\n")
            let (bytes, closed) = socket.receive()
            let received = HTTP1Responses.parse(bytes)
            #expect(received.map(\.body) == ["/bye"])
            #expect(received.first?.headers["connection"] == "close")
            #expect(closed)
        }
    }

    @Test("HTTP/1.1 and prior-knowledge HTTP/2 share one port")
    func protocolDetection() throws {
        try TestServer.run { server in
            let socket = try TestSocket(port: server.port)
            socket.send("GET /one HTTP/1.1\r\nHost: a\r\n\r\n")
            let client = try H2TestClient(port: server.port)
            let stream = client.request(path: "/two")
            #expect(client.run { client.responses[stream]!.closed })
            #expect(responses(socket, count: 1).responses.first?.body == "/one")
            #expect(client.responses[stream]?.text == "/two")
            #expect(Set(server.handler.received.map(\.version)) == [.http1_1, .http2])
        }
    }

    @Test("a client that disconnects mid-request leaves the server serving others")
    func disconnectMidRequest() throws {
        try TestServer.run { server in
            do {
                let quitter = try TestSocket(port: server.port)
                quitter.send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 1000\r\n\r\npartial")
            }
            do {
                let quitter = try H2TestClient(port: server.port)
                quitter.request(method: "POST", path: "/slow/50", body: [1, 2, 3])
                quitter.run(seconds: 0.01) { false }
            }
            let socket = try TestSocket(port: server.port)
            socket.send("GET /still-here HTTP/1.1\r\nHost: a\r\n\r\n")
            #expect(responses(socket, count: 1).responses.first?.body == "/still-here")
        }
    }

    @Test("a client that never reads does not grow the server's buffered output past the cap")
    func backPressure() throws {
        let cap = 256 * 1024
        try TestServer.run(configure: { $0.maxBufferedOutputBytes = cap }) { server in
            let socket = try TestSocket(port: server.port)
            let request = "GET /big/65536 HTTP/1.1\r\nHost: a\r\n\r\n"
            for _ in 0..<600 { socket.send(request) }
            // 600 x 64 KiB = 37.5 MiB: more than the kernel's socket buffers hold, so the server must hold back.
            waitBriefly()
            #expect(server.server.peakBufferedOutputBytes > 0)
            #expect(server.server.peakBufferedOutputBytes <= cap + 2 * 65_536 + 1024)
            // Pipelined requests are parsed only while less than 64 KiB of answers wait: besides what the kernel's
            // buffers took, a response or two beyond it.
            #expect(server.server.peakBufferedOutputBytes <= HTTP1Session.pipelinedOutputLimit + 65_536 + 1024)
            #expect(server.handler.received.count < 600)
            // Once the client reads, the server resumes and answers every request.
            let one = try TestSocket(port: server.port)
            one.send(request)
            let single = one.receive { HTTP1Responses.parse($0).count == 1 }.bytes.count
            let (bytes, _) = socket.receive { $0.count >= 600 * single }
            #expect(bytes.count == 600 * single)
            #expect(server.handler.received.count == 601)
        }
    }
}
