import CNghttp2

@testable import HTTP
import Testing

/// The HTTP/2 abuse defences at the frame level, in memory (the e2e suite repeats them over real sockets).
@Suite("HTTP/2 abuse defences in memory")
struct HTTP2AbuseTests {
    typealias Harness = HTTP2InMemoryTests.Harness

    @Test("a PING flood beyond the frame budget is answered GOAWAY(ENHANCE_YOUR_CALM) and the session ends")
    func pingFlood() throws {
        let harness = try Harness {
            $0.http2FrameBurst = 50
            $0.http2FrameRefillPerSecond = 1
        }
        harness.client.ping(count: 200)
        #expect(harness.exchange { harness.connection.isClosed })
        #expect(harness.client.goAwayErrorCodes == [NGHTTP2_ENHANCE_YOUR_CALM.rawValue])
        #expect(harness.context.abuse.calmedConnections.load(ordering: .relaxed) == 1)
    }

    @Test("PINGs within the budget are answered and the connection serves on")
    func pingsWithinBudget() throws {
        let harness = try Harness {
            $0.http2FrameBurst = 50
            $0.http2FrameRefillPerSecond = 1
        }
        harness.client.ping(count: 40)
        let stream = harness.client.request(path: "/after-pings")
        #expect(harness.exchange { harness.client.responses[stream]!.closed })
        #expect(harness.client.responses[stream]?.text == "/after-pings")
        #expect(harness.client.goAwayErrorCodes.isEmpty)
    }

    @Test("completed responses earn the budget back, so a busy connection is never cut off")
    func responsesEarnBudget() throws {
        let harness = try Harness {
            $0.http2FrameBurst = 20
            $0.http2FrameRefillPerSecond = 0
        }
        // Each round: one request answered (+4 tokens) and three PINGs (-3): sustainable indefinitely.
        for round in 0..<30 {
            harness.client.ping(count: 3)
            let stream = harness.client.request(path: "/round/\(round)")
            #expect(harness.exchange { harness.client.responses[stream]!.closed })
        }
        #expect(harness.client.goAwayErrorCodes.isEmpty)
        #expect(!harness.connection.isClosed)
    }

    @Test("a header list far over the limit is not decoded to its end: the stream is reset, the peer cut off")
    func headerBombIsReset() throws {
        let harness = try Harness { $0.maxHeaderFields = 10 }
        let headers = (0..<100).map { ("x-\($0)", "v") }
        let stream = harness.client.request(path: "/bomb", headers: headers)
        #expect(harness.exchange { harness.connection.isClosed })
        #expect(harness.client.responses[stream]?.status == 0)
        #expect(harness.client.goAwayErrorCodes == [NGHTTP2_ENHANCE_YOUR_CALM.rawValue])
        #expect(harness.handler.received.isEmpty)
    }

    @Test("a header count just over the limit is answered 431")
    func headerCountOverLimit() throws {
        let harness = try Harness { $0.maxHeaderFields = 10 }
        let stream = harness.client.request(path: "/many", headers: (0..<20).map { ("x-\($0)", "v") })
        #expect(harness.exchange { harness.client.responses[stream]!.closed })
        #expect(harness.client.responses[stream]?.status == 431)
        #expect(harness.handler.received.isEmpty)
    }
}
