@testable import AppCheckService
import AppCheckMessages
import Basics
import GRPC
import HTTP
import Synchronization
import Testing

@Suite("Deadline replies")
struct DeadlineReplyTests {
    /// Every answer a call was given.
    final class Answers: Sendable {
        private let results = Mutex<[Result<HealthCheckResponse, GRPCStatus>]>([])

        var reply: RPCReply<HealthCheckResponse> { RPCReply { result, _ in self.results.withLock { $0.append(result) } } }
        var codes: [GRPCStatus.Code] {
            results.withLock { $0.map { result in if case .failure(let status) = result { status.code } else { .ok } } }
        }
    }

    static func inMilliseconds(_ milliseconds: UInt64) -> UInt64 { MonotonicClock.nanoseconds() + milliseconds * 1_000_000 }

    @Test("a call its work has not answered by the deadline hears DEADLINE_EXCEEDED then, and nothing after")
    func answersAtDeadline() async throws {
        let answers = Answers()
        let reply = DeadlineReply(answers.reply)
        reply.expire(at: Self.inMilliseconds(100), with: GRPCStatus(.deadlineExceeded, "too late"))
        #expect(answers.codes.isEmpty)
        #expect(!reply.isAnswered)
        try await Task.sleep(for: .milliseconds(500))
        #expect(answers.codes == [.deadlineExceeded])
        #expect(reply.isAnswered)
        reply.complete(.success(HealthCheckResponse()), joining: nil)
        #expect(answers.codes == [.deadlineExceeded])
    }

    @Test("work that answers before the deadline is not contradicted when the deadline comes")
    func workAnswersFirst() async throws {
        let answers = Answers()
        let reply = DeadlineReply(answers.reply)
        reply.expire(at: Self.inMilliseconds(50), with: GRPCStatus(.deadlineExceeded, "too late"))
        reply.complete(.success(HealthCheckResponse()), joining: nil)
        try await Task.sleep(for: .milliseconds(300))
        #expect(answers.codes == [.ok])
    }

    @Test("a deadline already passed is answered at once")
    func passedDeadline() async throws {
        let answers = Answers()
        let reply = DeadlineReply(answers.reply)
        reply.expire(at: MonotonicClock.nanoseconds() - 1, with: GRPCStatus(.deadlineExceeded, "too late"))
        try await Task.sleep(for: .milliseconds(200))
        #expect(answers.codes == [.deadlineExceeded])
    }
}
