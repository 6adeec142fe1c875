@testable import AppCheckService
import AppCheckMessages
import GRPC
import Observability
import Synchronization
import Testing

@Suite("RPC endpoints")
struct RPCEndpointTests {
    /// Answers every call with two bits last updated in `month`, as Apple's DeviceCheck states it (`YYYY-MM`).
    struct TwoBitsFromApple: UnaryHandler {
        let month: String

        func handle(_ request: QueryTwoBitsRequest, context: RPCContext, reply: RPCReply<TwoBitsState>) {
            reply.succeed(TwoBitsState(bit0: true, lastUpdateTime: MonthStamp.timestamp(month), bitsSet: true))
        }
    }

    /// Calls `endpoint` with an empty request in `encoding`; the handler above answers before `invoke` returns.
    func call(_ endpoint: RPCEndpoint, _ encoding: MessageEncoding) -> Result<[UInt8], GRPCStatus>? {
        let answer = Mutex<Result<[UInt8], GRPCStatus>?>(nil)
        let context = RPCContext(requestID: "test", deadlineNanos: nil, logger: Logger(label: "test"))
        endpoint.invoke([], encoding, context) { result, _ in answer.withLock { $0 = result } }
        return answer.withLock { $0 }
    }

    @Test("answers INTERNAL, and keeps serving, when a REST answer taken from Apple has no JSON form")
    func answerWithoutJSONForm() throws {
        // Year 0 is a month Apple's format can state and a Timestamp cannot hold: its JSON form used to stop the
        // process.
        let endpoint = RPCEndpoint(AppCheckRPC.queryTwoBits.method, TwoBitsFromApple(month: "0000-01"), service: .all)
        let json = try #require(call(endpoint, .json(pathParameters: [])))
        guard case .failure(let status) = json else {
            Issue.record("answered \(json) with a timestamp before year 1")
            return
        }
        #expect(status.code == .internal)
        // gRPC carries the same answer: protobuf has a form for it.
        let protobuf = try #require(call(endpoint, .protobuf))
        #expect((try? protobuf.get()) != nil)
        // A month in range is written as JSON.
        let inRange = RPCEndpoint(AppCheckRPC.queryTwoBits.method, TwoBitsFromApple(month: "2026-11"), service: .all)
        let written = try #require(try call(inRange, .json(pathParameters: []))?.get())
        #expect(String(decoding: written, as: UTF8.self).contains("2026-11-01T00:00:00Z"))
    }
}
