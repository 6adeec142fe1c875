import Basics
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

    @Test("a response taken a byte at a time is cut off with ENHANCE_YOUR_CALM after the response-drain timeout")
    func windowUpdateTrickle() throws {
        let harness = try Harness { $0.responseDrainTimeoutSeconds = 2 }
        harness.client.setInitialWindowSize(1)
        let stream = harness.client.request(path: "/big/4000")
        harness.exchange(rounds: 30)
        // The body crawls: every round trip moves a byte or so, which is progress as the write-stall check sees it.
        let crawled = harness.client.responses[stream]?.body.count ?? 0
        #expect(crawled > 0 && crawled < 4000)
        let now = MonotonicClock.nanoseconds()
        harness.connection.checkTimeouts(now: now)
        #expect(harness.client.goAwayErrorCodes.isEmpty)
        harness.connection.checkTimeouts(now: now + 2_000_000_000)
        #expect(harness.exchange { harness.connection.isClosed })
        #expect(harness.client.goAwayErrorCodes == [NGHTTP2_ENHANCE_YOUR_CALM.rawValue])
        #expect(harness.context.abuse.stalledConnections.load(ordering: .relaxed) == 1)
        #expect(harness.client.responses[stream]?.body.count ?? 0 < 4000)
    }

    @Test("a response taken at an honest pace is not cut off by the response-drain timeout")
    func honestPaceIsNotCutOff() throws {
        let harness = try Harness { $0.responseDrainTimeoutSeconds = 2 }
        let stream = harness.client.request(path: "/big/100000")
        #expect(harness.exchange { harness.client.responses[stream]!.closed })
        #expect(harness.client.responses[stream]?.body.count == 100_000)
        harness.connection.checkTimeouts(now: MonotonicClock.nanoseconds() + 10_000_000_000)
        harness.exchange(rounds: 5)
        #expect(!harness.connection.isClosed)
        #expect(harness.client.goAwayErrorCodes.isEmpty)
        #expect(harness.context.abuse.stalledConnections.load(ordering: .relaxed) == 0)
    }
}
