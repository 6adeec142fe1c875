import Testing
import GRPC

@Suite("deadlines")
struct GRPCDeadlineTests {
    let limit = GRPCTimeout(nanoseconds: 30_000_000_000)

    @Test("adds the client's timeout to the arrival time")
    func fromTimeout() {
        let deadline = GRPCDeadline(receivedAt: 1_000, timeout: GRPCTimeout(headerValue: "250m"), limit: limit)
        #expect(deadline.uptimeNanoseconds == 250_001_000)
        #expect(!deadline.hasPassed(at: 250_000_999))
        #expect(deadline.hasPassed(at: 250_001_000))
        #expect(deadline.remaining(at: 1_000).nanoseconds == 250_000_000)
        #expect(deadline.remaining(at: 300_000_000).nanoseconds == 0)
    }

    @Test("caps a long or absent timeout at the server's limit")
    func capped() {
        #expect(GRPCDeadline(receivedAt: 0, timeout: GRPCTimeout(headerValue: "1H"), limit: limit).uptimeNanoseconds
            == 30_000_000_000)
        #expect(GRPCDeadline(receivedAt: 5, timeout: nil, limit: limit).uptimeNanoseconds == 30_000_000_005)
    }

    @Test("a request without a timeout gets the server's default, one with a timeout its own, longer or not")
    func defaulted() {
        let fallback = GRPCTimeout(nanoseconds: 15_000_000_000)
        #expect(GRPCDeadline(receivedAt: 7, timeout: nil, default: fallback).uptimeNanoseconds == 15_000_000_007)
        #expect(GRPCDeadline(receivedAt: 7, timeout: GRPCTimeout(headerValue: "1S"), default: fallback).uptimeNanoseconds
            == 1_000_000_007)
        #expect(GRPCDeadline(receivedAt: 7, timeout: GRPCTimeout(headerValue: "1M"), default: fallback).uptimeNanoseconds
            == 60_000_000_007)
        #expect(GRPCDeadline(receivedAt: .max - 1, timeout: nil, default: fallback).uptimeNanoseconds == .max)
    }

    @Test("does not overflow near the end of the clock")
    func saturates() {
        let deadline = GRPCDeadline(receivedAt: .max - 1, timeout: nil, limit: limit)
        #expect(deadline.uptimeNanoseconds == .max)
        #expect(GRPCDeadline.exceeded.code == .deadlineExceeded)
        #expect(GRPCDeadline.exceeded.code.httpStatus == 504)
    }

    @Test("accepts JSON or no content type for REST bodies")
    func restContentTypes() {
        #expect(RESTRequestHeaders.acceptsJSON(contentType: String?.none))
        #expect(RESTRequestHeaders.acceptsJSON(contentType: "application/json"))
        #expect(RESTRequestHeaders.acceptsJSON(contentType: "application/json; charset=UTF-8"))
        #expect(!RESTRequestHeaders.acceptsJSON(contentType: "text/plain"))
        #expect(!RESTRequestHeaders.acceptsJSON(contentType: "application/grpc"))
        #expect(RESTRequestHeaders.unsupportedContentType("text/plain").code == .invalidArgument)
    }
}
