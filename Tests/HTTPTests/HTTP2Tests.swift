import Basics
import CNghttp2
@testable import HTTP
import Testing

@Suite("HTTP/2 over cleartext with prior knowledge")
struct HTTP2Tests {
    @Test("answers a GET and echoes a POST body on separate streams of one connection")
    func getAndPost() throws {
        try TestServer.run { server in
            let client = try H2TestClient(port: server.port)
            let get = client.request(path: "/hello?x=1")
            let post = client.request(method: "POST", path: "/echo", headers: [("content-type", "text/plain")], body: Array("ping".utf8))
            #expect(client.run { client.responses[get]!.closed && client.responses[post]!.closed })
            #expect(client.responses[get]?.status == 200)
            #expect(client.responses[get]?.text == "/hello?x=1")
            #expect(client.responses[post]?.text == "ping")
            #expect(client.responses[post]?.headers["x-method"] == "POST")
            let request = try #require(server.handler.received.first { $0.path == "/echo" })
            #expect(request.version == .http2)
            #expect(request.authority == "localhost")
            #expect(request.headers["content-type"] == "text/plain")
            #expect(request.headers[":path"] == nil)
            #expect(request.isTLS == false)
            #expect(request.remoteAddress.hasPrefix("127.0.0.1:"))
            #expect(request.receivedAtNanos > 0 && request.receivedAtNanos <= MonotonicClock.nanoseconds())
        }
    }

    @Test("takes the authority from Host when :authority is absent")
    func hostAsAuthority() throws {
        let harness = try HTTP2InMemoryTests.Harness()
        let stream = harness.client.request(path: "/h", headers: [("host", "example.test")], omitAuthority: true)
        #expect(harness.exchange { harness.client.responses[stream]!.closed })
        #expect(harness.handler.received.first?.authority == "example.test")
    }

    @Test("sends trailers in a trailing HEADERS frame after the body")
    func trailers() throws {
        try TestServer.run { server in
            let client = try H2TestClient(port: server.port)
            let stream = client.request(method: "POST", path: "/trailers", body: [0, 0, 0, 0, 0])
            #expect(client.run { client.responses[stream]!.closed })
            let response = try #require(client.responses[stream])
            #expect(response.text == "ok")
            #expect(response.trailers["grpc-status"] == "0")
            #expect(response.trailers["grpc-message"] == "fine")
            #expect(response.headers["grpc-status"] == nil)
        }
    }

    @Test("drops a handler's HTTP/1.1 connection fields and pseudo-headers from headers and trailers, keeping the rest")
    func hopByHopFieldsDropped() throws {
        try TestServer.run { server in
            let client = try H2TestClient(port: server.port)
            let stream = client.request(path: "/hop-by-hop")
            #expect(client.run { client.responses[stream]!.closed })
            // nghttp2's client refuses a response carrying any of them, so an answer at all means they were dropped.
            let response = try #require(client.responses[stream])
            #expect(response.status == 200)
            #expect(response.text == "ok")
            for name in ["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"] {
                #expect(response.headers[name] == nil && response.trailers[name] == nil)
            }
            #expect(response.headers["x-connect1"] == "same length as connection")
            #expect(response.headers["x-upgra"] == "kept")
            #expect(response.headers["x-transfer-encod1"] == "same length as transfer-encoding")
            #expect(response.headers["x-empty"] == "")
            #expect(response.headers["x-method"] == "GET")
            #expect(response.trailers["grpc-status"] == "0")
        }
    }

    @Test("advertises the configured maximum of concurrent streams and header list size")
    func settingsAdvertised() throws {
        try TestServer.run(configure: { $0.maxConcurrentStreams = 7; $0.maxHeaderListBytes = 4096 }) { server in
            let client = try H2TestClient(port: server.port)
            let stream = client.request(path: "/x")
            #expect(client.run { client.responses[stream]!.closed })
            #expect(client.remoteSetting(.maxConcurrentStreams) == 7)
            #expect(client.remoteSetting(.maxHeaderListSize) == 4096)
        }
    }

    @Test("a body over the limit reaches the handler at once as bodyTooLarge with an empty body")
    func bodyTooLarge() throws {
        try TestServer.run(configure: { $0.maxRequestBodyBytes = 1000 }) { server in
            let client = try H2TestClient(port: server.port)
            let big = client.request(method: "POST", path: "/echo", body: [UInt8](repeating: 1, count: 5000))
            let small = client.request(method: "POST", path: "/echo", body: [UInt8](repeating: 2, count: 1000))
            #expect(client.run { client.responses[big]!.closed && client.responses[small]!.closed })
            #expect(client.responses[big]?.headers["x-body-too-large"] == "true")
            #expect(client.responses[big]?.body.isEmpty == true)
            #expect(client.responses[small]?.headers["x-body-too-large"] == "false")
            #expect(client.responses[small]?.body.count == 1000)
            let request = try #require(server.handler.received.first { $0.bodyTooLarge })
            #expect(request.body.isEmpty)
        }
    }

    @Test("echoes a body of exactly the maximum size, larger than the initial flow-control window")
    func bodyAtLimit() throws {
        try TestServer.run { server in
            let client = try H2TestClient(port: server.port)
            let body = (0..<(64 * 1024 + 5)).map { UInt8(truncatingIfNeeded: $0) }
            let stream = client.request(method: "POST", path: "/echo", body: body)
            #expect(client.run { client.responses[stream]!.closed })
            #expect(client.responses[stream]?.headers["x-body-too-large"] == "false")
            #expect(client.responses[stream]?.body == body)
        }
    }

    @Test("a header list over the limit is answered with 431 without reaching the handler")
    func headersTooLarge() throws {
        try TestServer.run(configure: { $0.maxHeaderListBytes = 1024 }) { server in
            let client = try H2TestClient(port: server.port)
            let stream = client.request(path: "/huge", headers: [("x-big", String(repeating: "a", count: 2000))])
            let fine = client.request(path: "/fine")
            #expect(client.run { client.responses[stream]!.closed && client.responses[fine]!.closed })
            #expect(client.responses[stream]?.status == 431)
            #expect(client.responses[fine]?.status == 200)
            #expect(!server.handler.received.contains { $0.path == "/huge" })
        }
    }

    @Test("a responder called from another thread answers on the connection's stream")
    func respondFromAnotherThread() throws {
        try TestServer.run { server in
            let client = try H2TestClient(port: server.port)
            let streams = (0..<20).map { _ in client.request(path: "/async") }
            #expect(client.run { streams.allSatisfy { client.responses[$0]!.closed } })
            #expect(streams.allSatisfy { client.responses[$0]?.text == "async" })
            #expect(streams.allSatisfy { client.responses[$0]?.headers["x-thread"] == "other" })
        }
    }

    @Test("answers made on another thread are timed until their loop takes them up; answers made on the loop are not")
    func answerReturnTimes() throws {
        try TestServer.run { server in
            let client = try H2TestClient(port: server.port)
            let onLoop = (0..<3).map { _ in client.request(path: "/fast") }
            #expect(client.run { onLoop.allSatisfy { client.responses[$0]!.closed } })
            #expect(server.server.answerReturnTimes.count == 0)
            let elsewhere = (0..<5).map { _ in client.request(path: "/async") }
            #expect(client.run { elsewhere.allSatisfy { client.responses[$0]!.closed } })
            #expect(server.server.answerReturnTimes.count == 5)
        }
    }

    @Test("open streams are counted while a request waits for its answer")
    func openStreamsGauge() throws {
        try TestServer.run { server in
            let client = try H2TestClient(port: server.port)
            let stream = client.request(path: "/slow/400")
            client.run(seconds: 0.2) { false }
            #expect(server.server.openStreams == 1)
            #expect(server.server.openConnections == 1)
            #expect(client.run { client.responses[stream]!.closed })
            client.run(seconds: 0.1) { false }
            #expect(server.server.openStreams == 0)
        }
    }

    @Test("a connection with a bad preface is closed while others keep being served")
    func badPreface() throws {
        try TestServer.run { server in
            let bad = try TestSocket(port: server.port)
            bad.send("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + String(repeating: "\u{1}", count: 30))
            #expect(bad.receive().closed)
            let client = try H2TestClient(port: server.port)
            let stream = client.request(path: "/after")
            #expect(client.run { client.responses[stream]!.closed })
            #expect(client.responses[stream]?.text == "/after")
        }
    }
}
