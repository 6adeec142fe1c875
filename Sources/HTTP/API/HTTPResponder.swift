import Basics
public import Batching
import Synchronization

/// The way back to the client for one request. Safe to pass to any thread.
public final class HTTPResponder: Sendable {
    private let loop: EventLoop
    private let connectionID: UInt64
    /// The HTTP/2 stream id, or the HTTP/1.1 request's sequence number on its connection.
    private let token: UInt64
    private let responded = Atomic<Bool>(false)

    init(loop: EventLoop, connectionID: UInt64, token: UInt64) {
        self.loop = loop
        self.connectionID = connectionID
        self.token = token
    }

    /// Sends the response; call exactly once, from any thread (later calls are ignored). On the connection's own
    /// loop thread it is written without a thread hop (even from inside `handle(_:responder:turn:)`); from another
    /// thread it is posted to the loop, which is woken at once (the wait until the loop takes it up is measured:
    /// the server's ``HTTPServer/answerReturnTimes``). If the client has gone away, it is dropped silently.
    public func respond(_ response: HTTPResponse) {
        respond(response, joining: nil)
    }

    /// Sends the response as ``respond(_:)`` does, except that from another thread the loop's wake-up joins
    /// `batch` (when given): the answer is queued on the loop at once, and the loop is woken when the batch
    /// flushes, together with the other loops its thread answered on.
    public func respond(_ response: HTTPResponse, joining batch: Batch?) {
        guard !responded.exchange(true, ordering: .relaxed) else { return }
        if loop.isInLoopThread {
            loop.connection(connectionID)?.deliver(response, token: token)
        } else {
            let loop = self.loop
            let connectionID = self.connectionID
            let token = self.token
            let madeAt = MonotonicClock.nanoseconds()
            loop.execute(joining: batch) {
                guard let connection = loop.connection(connectionID) else { return }
                connection.context.answerReturn.record(from: madeAt, to: MonotonicClock.nanoseconds())
                connection.deliver(response, token: token)
            }
        }
    }
}
