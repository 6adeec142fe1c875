import Glibc
@testable import HTTP
import Observability
import Testing

/// Work posted to a loop from other threads (responses of handlers that answer late).
@Suite("event loop inbox")
struct EventLoopInboxTests {
    struct Ignore: HTTPHandler {
        func handle(_ request: HTTPRequest, responder: HTTPResponder, turn: LoopTurn) {}
    }

    /// Runs `loop` on a thread of its own until it stops; nothing of the thread refers to the loop after the join.
    private static func runToCompletion(_ loop: EventLoop) -> pthread_t {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(loop as AnyObject).toOpaque()
        let created = pthread_create(&thread, nil, { raw in
            let loop = Unmanaged<AnyObject>.fromOpaque(raw!).takeRetainedValue() as! EventLoop
            loop.run()
            return nil
        }, context)
        precondition(created == 0, "pthread_create failed")
        return thread
    }

    @Test("a task posted after the loop stopped is dropped, so it cannot keep the loop alive")
    func postAfterStop() throws {
        let context = ServerContext(
            configuration: HTTPServerConfiguration(listeners: []), handler: Ignore(), logger: Logger(label: "inbox"))
        weak var weakLoop: EventLoop?
        do {
            let loop = try EventLoop(context: context, index: 0)
            weakLoop = loop
            let thread = Self.runToCompletion(loop)
            loop.execute { loop.beginShutdown(deadline: 0) }
            pthread_join(thread, nil)
            // What a late HTTPResponder does: post a task that captures the loop (LeakSanitizer found the cycle
            // inbox -> task -> loop when tasks were still kept after the loop had stopped).
            loop.execute { loop.logger.info("never runs") }
        }
        #expect(weakLoop == nil)
    }
}
