import CNghttp2

@testable import HTTP
import Observability
import Testing

/// HTTP/2 at the frame level without sockets: an nghttp2 client session's output is piped into a server
/// connection on a loop driven by the test thread, and the server's output back into the client.
@Suite("HTTP/2 in memory")
struct HTTP2InMemoryTests {
    final class Harness {
        let handler = TestHandler()
        let context: ServerContext
        let loop: EventLoop
        let output = MemoryOutput()
        let connection: Connection
        let client = H2TestClient()

        init(configure: (inout HTTPServerConfiguration) -> Void = { _ in }) throws {
            var configuration = HTTPServerConfiguration(listeners: [HTTPListener(host: "127.0.0.1", port: 0)])
            configure(&configuration)
            context = ServerContext(configuration: configuration, handler: handler, logger: Logger(label: "memory"))
            loop = try EventLoop(context: context, index: 0)
            loop.adoptCallingThread()
            connection = loop.openMemoryConnection(output: output)
        }

        /// Moves bytes both ways until neither side has anything to say (or `done`), running the loop's posted
        /// work (responses from other threads) in between.
        @discardableResult
        func exchange(rounds: Int = 200, until done: () -> Bool = { false }) -> Bool {
            for _ in 0..<rounds {
                let toServer = client.outgoing()
                if !toServer.isEmpty { connection.receive(memory: toServer) }
                loop.runPendingWork()
                let toClient = output.take()
                client.incoming(toClient)
                if done() { return true }
                if toServer.isEmpty && toClient.isEmpty { usleepBriefly() }
            }
            return done()
        }

        private func usleepBriefly() { waitBriefly(milliseconds: 2) }
    }

    @Test("serves a request whose response was posted from another thread")
    func crossThreadResponse() throws {
        let harness = try Harness()
        let stream = harness.client.request(path: "/async")
        #expect(harness.exchange { harness.client.responses[stream]!.closed })
        #expect(harness.client.responses[stream]?.text == "async")
        #expect(harness.context.openStreams.load(ordering: .relaxed) == 0)
    }

    @Test("streams beyond the concurrency limit are refused with REFUSED_STREAM")
    func refusesExcessStreams() throws {
        let harness = try Harness { $0.maxConcurrentStreams = 3 }
        // All requests go out in the first flight, before the client has seen the server's SETTINGS.
        let streams = (0..<6).map { _ in harness.client.request(path: "/slow/100") }
        #expect(harness.exchange { streams.allSatisfy { harness.client.responses[$0]!.closed } })
        let refused = streams.filter { harness.client.responses[$0]?.errorCode == NGHTTP2_REFUSED_STREAM.rawValue }
        let served = streams.filter { harness.client.responses[$0]?.status == 200 }
        #expect(served.count == 3)
        #expect(refused.count == 3)
        #expect(harness.handler.received.count == 3)
    }

    @Test("a response for a stream the client cancelled is dropped, and the connection carries on")
    func cancelledStream() throws {
        let harness = try Harness()
        let cancelled = harness.client.request(path: "/slow/50")
        harness.exchange(rounds: 2)
        #expect(harness.context.openStreams.load(ordering: .relaxed) == 1)
        harness.client.cancel(cancelled)
        harness.exchange(rounds: 2)
        #expect(harness.context.openStreams.load(ordering: .relaxed) == 0)
        waitBriefly(milliseconds: 100)
        let next = harness.client.request(path: "/after")
        #expect(harness.exchange { harness.client.responses[next]!.closed })
        #expect(harness.client.responses[next]?.text == "/after")
        #expect(harness.client.responses[cancelled]?.status == 0)
    }

    @Test("a body over the limit is answered, then the stream is reset with NO_ERROR")
    func resetAfterTooLargeBody() throws {
        let harness = try Harness { $0.maxRequestBodyBytes = 10 }
        let stream = harness.client.request(method: "POST", path: "/echo", body: [UInt8](repeating: 7, count: 40_000))
        #expect(harness.exchange { harness.client.responses[stream]!.closed })
        let response = try #require(harness.client.responses[stream])
        #expect(response.status == 200)
        #expect(response.headers["x-body-too-large"] == "true")
        #expect(response.errorCode == NGHTTP2_NO_ERROR.rawValue)
        #expect(harness.handler.received.count == 1)
    }

    @Test("a body over the limit on a stream the client keeps open is answered at once, then reset with NO_ERROR")
    func tooLargeBodyOnOpenStream() throws {
        let harness = try Harness { $0.maxRequestBodyBytes = 10 }
        let stream = harness.client.request(method: "POST", path: "/echo", body: [UInt8](repeating: 7, count: 100),
                                            endStream: false)
        #expect(harness.exchange { harness.client.responses[stream]!.closed })
        let response = try #require(harness.client.responses[stream])
        #expect(response.headers["x-body-too-large"] == "true")
        #expect(response.errorCode == NGHTTP2_NO_ERROR.rawValue)
    }

    @Test("a body whose first bytes announce more than the limit is refused as soon as they arrive, the stream open")
    func announcedTooLarge() throws {
        let harness = try Harness { $0.maxRequestBodyBytes = 1_000 }
        let stream = harness.client.request(
            method: "POST", path: "/echo", headers: [("content-type", "application/x-length-prefixed")],
            body: [0x80, 0, 0, 0], endStream: false)
        #expect(harness.exchange { harness.client.responses[stream]!.closed })
        let response = try #require(harness.client.responses[stream])
        #expect(response.status == 200)
        #expect(response.headers["x-body-too-large"] == "true")
        #expect(response.errorCode == NGHTTP2_NO_ERROR.rawValue)
        #expect(harness.handler.received.count == 1)
        // The connection's other streams are untouched.
        let next = harness.client.request(path: "/after")
        #expect(harness.exchange { harness.client.responses[next]!.closed })
        #expect(harness.client.responses[next]?.text == "/after")
    }

    @Test("a body announced within the limit is waited for, and served whole when it ends")
    func announcedWithinLimit() throws {
        let harness = try Harness { $0.maxRequestBodyBytes = 1_000 }
        let stream = harness.client.request(
            method: "POST", path: "/echo", headers: [("content-type", "application/x-length-prefixed")],
            body: [0, 0, 0, 8], endStream: false)
        harness.exchange(rounds: 5)
        #expect(harness.handler.received.isEmpty)
        #expect(harness.client.responses[stream]?.closed == false)
        #expect(harness.handler.sizeQuestions.load(ordering: .relaxed) == 1)
    }

    @Test("a request whose body ends in its first DATA frame is never asked for an announced size")
    func unaryBodyNotAsked() throws {
        let harness = try Harness()
        let stream = harness.client.request(
            method: "POST", path: "/echo", headers: [("content-type", "application/x-length-prefixed")],
            body: [0, 0, 0, 8, 1, 2, 3, 4])
        #expect(harness.exchange { harness.client.responses[stream]!.closed })
        #expect(harness.client.responses[stream]?.body == [0, 0, 0, 8, 1, 2, 3, 4])
        #expect(harness.handler.sizeQuestions.load(ordering: .relaxed) == 0)
    }

    @Test("the shutdown notice is followed by a final GOAWAY naming the last stream, then the session ends")
    func twoGoAways() throws {
        let harness = try Harness()
        let stream = harness.client.request(path: "/slow/50")
        harness.exchange(rounds: 2)
        harness.connection.beginGracefulShutdown()
        harness.exchange(rounds: 2)
        #expect(harness.client.goAwayLastStreamIDs == [Int32.max])
        harness.connection.shutdownTick()
        harness.connection.shutdownTick()
        #expect(harness.exchange { harness.client.responses[stream]!.closed })
        #expect(harness.client.goAwayLastStreamIDs == [Int32.max, stream])
        #expect(harness.client.responses[stream]?.status == 200)
        harness.exchange(rounds: 2)
        #expect(harness.connection.isClosed)
    }

    @Test("recognises the HTTP/2 preface even when it arrives a few bytes at a time")
    func splitPreface() throws {
        let harness = try Harness()
        let stream = harness.client.request(path: "/split")
        let bytes = harness.client.outgoing()
        for start in stride(from: 0, to: bytes.count, by: 3) {
            harness.connection.receive(memory: Array(bytes[start..<min(start + 3, bytes.count)]))
            harness.loop.runPendingWork()
        }
        #expect(harness.exchange { harness.client.responses[stream]!.closed })
        #expect(harness.client.responses[stream]?.text == "/split")
        #expect(harness.handler.received.first?.version == .http2)
    }

    @Test("HTTP/1.1 that happens to start like the preface is still HTTP/1.1")
    func prefixOfPrefaceThenHTTP1() throws {
        let harness = try Harness()
        harness.connection.receive(memory: Array("P".utf8))
        harness.loop.runPendingWork()
        harness.connection.receive(memory: Array("OST /p HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n".utf8))
        harness.loop.runPendingWork()
        let text = String(decoding: harness.output.take(), as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(text.hasSuffix("\r\n\r\n/p"))
    }
}
