import Testing
@testable import attestd_bench

@Suite("Outcome")
struct OutcomeTests {
    @Test("gRPC succeeds only with HTTP 200 and grpc-status 0")
    func grpcSuccess() {
        #expect(Outcome(httpStatus: 200, grpcStatus: 0).isOK(framing: .grpc))
        #expect(!Outcome(httpStatus: 200, grpcStatus: -1).isOK(framing: .grpc), "no grpc-status is not a success")
        #expect(!Outcome(httpStatus: 200, grpcStatus: 14).isOK(framing: .grpc))
        #expect(Outcome(httpStatus: 200, grpcStatus: 14).statusKey(framing: .grpc) == "grpc 14 UNAVAILABLE")
    }

    @Test("REST succeeds with HTTP 200; other statuses are counted by number")
    func restSuccess() {
        #expect(Outcome(httpStatus: 200).isOK(framing: .rest))
        #expect(Outcome(httpStatus: 503).statusKey(framing: .rest) == "http 503")
    }

    @Test("a refusal is PERMISSION_DENIED over gRPC and 403 over REST")
    func refusals() {
        #expect(Outcome(httpStatus: 200, grpcStatus: 7).isRefused(framing: .grpc))
        #expect(Outcome(httpStatus: 403).isRefused(framing: .rest))
        #expect(!Outcome(httpStatus: 200, grpcStatus: 0).isRefused(framing: .grpc))
        #expect(!Outcome(httpStatus: 403, resetCode: 7).isRefused(framing: .rest), "a reset stream is no answer")
    }

    @Test("resets and lost connections are errors of their own")
    func transportErrors() {
        #expect(Outcome(httpStatus: 200, grpcStatus: 0, resetCode: 7).statusKey(framing: .grpc) == "reset 7")
        #expect(Outcome(resetCode: Outcome.connectionLost).statusKey(framing: .grpc) == "connection lost")
    }
}
