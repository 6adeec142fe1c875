import Batching
import Foundation
import HTTP
import Observability
import Synchronization

/// Routes by path, so each test picks the behaviour it needs:
/// `/echo` returns the body; `/trailers` adds trailers; `/async` answers from another thread;
/// `/slow/<ms>` answers from another thread after a delay; `/big/<bytes>` returns that many bytes; `/inline` asks
/// for the loop turn's inline slot twice and returns both answers; `/inline-elsewhere` asks for it from another
/// thread; `/held` answers from a thread whose batch holds its loop wake-up back, then flushes the batch; `/hop-by-hop` answers with HTTP/1.1 connection fields (and look-alikes of the
/// same lengths) in its headers and trailers; `/thread-name` returns the name of the thread it runs on; anything
/// else returns the path. Every request is recorded. A body of content type `application/x-length-prefixed`
/// announces its size in its first 4 bytes (big-endian, the prefix included).
final class TestHandler: HTTPHandler {
    let requests = Mutex<[HTTPRequest]>([])
    /// How often the server asked for a body's announced size.
    let sizeQuestions = Atomic<Int>(0)

    func announcedBodySize(headers: HTTPHeaders, bodyPrefix: [UInt8]) -> Int? {
        sizeQuestions.add(1, ordering: .relaxed)
        guard headers["content-type"] == "application/x-length-prefixed", bodyPrefix.count >= 4 else { return nil }
        return bodyPrefix[..<4].reduce(0) { $0 << 8 | Int($1) }
    }

    var received: [HTTPRequest] { requests.withLock { $0 } }

    func handle(_ request: HTTPRequest, responder: HTTPResponder, turn: LoopTurn) {
        requests.withLock { $0.append(request) }
        var headers = HTTPHeaders([("X-Method", request.method), ("x-body-too-large", String(request.bodyTooLarge))])
        let parts = request.path.split(separator: "/").map(String.init)
        switch parts.first {
        case "echo":
            responder.respond(HTTPResponse(status: 200, headers: headers, body: request.body))
        case "trailers":
            responder.respond(HTTPResponse(
                status: 200, headers: headers, body: Array("ok".utf8),
                trailers: HTTPHeaders([("grpc-status", "0"), ("grpc-message", "fine")])))
        case "async":
            headers.add("x-thread", "other")
            let headers = headers
            // A thread of its own: Dispatch's workers are shared with Swift Testing's (blocked) test threads.
            Thread.detachNewThread {
                responder.respond(HTTPResponse(status: 200, headers: headers, body: Array("async".utf8)))
            }
        case "slow":
            let milliseconds = Int(parts.count > 1 ? parts[1] : "100") ?? 100
            let headers = headers
            Thread.detachNewThread {
                usleep(UInt32(milliseconds) * 1000)
                responder.respond(HTTPResponse(status: 200, headers: headers, body: Array("slow \(milliseconds)".utf8)))
            }
        case "held":
            let headers = headers
            Thread.detachNewThread {
                let batch = Batch()
                responder.respond(HTTPResponse(status: 200, headers: headers, body: Array("held".utf8)), joining: batch)
                batch.flush()
            }
        case "hop-by-hop":
            for (name, value) in [("Connection", "close"), ("keep-alive", "timeout=5"), ("proxy-connection", "x"),
                                  ("transfer-encoding", "chunked"), ("upgrade", "h2c"), (":authority", "x"),
                                  ("x-connect1", "same length as connection"), ("x-upgra", "kept"),
                                  ("x-transfer-encod1", "same length as transfer-encoding"), ("x-empty", "")] {
                headers.add(name, value)
            }
            responder.respond(HTTPResponse(
                status: 200, headers: headers, body: Array("ok".utf8),
                trailers: HTTPHeaders([("grpc-status", "0"), ("upgrade", "h2c"), ("connection", "close")])))
        case "thread-name":
            responder.respond(HTTPResponse(status: 200, headers: headers, body: Array(ThreadName.current.utf8)))
        case "inline":
            let answers = [turn.claimInlineSlot(), turn.claimInlineSlot()]
            responder.respond(HTTPResponse(status: 200, headers: headers, body: Array("\(answers)".utf8)))
        case "inline-elsewhere":
            // Asked on another thread while this turn is still running (the loop waits for the answer).
            let claimed = Claimed()
            let asked = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                claimed.slot.store(turn.claimInlineSlot(), ordering: .relaxed)
                asked.signal()
            }
            asked.wait()
            let answer = claimed.slot.load(ordering: .relaxed)
            responder.respond(HTTPResponse(status: 200, headers: headers, body: Array("\(answer)".utf8)))
        case "big":
            let count = Int(parts.count > 1 ? parts[1] : "0") ?? 0
            responder.respond(HTTPResponse(status: 200, headers: headers, body: [UInt8](repeating: 0x61, count: count)))
        default:
            responder.respond(HTTPResponse(status: 200, headers: headers, body: Array(request.path.utf8)))
        }
    }
}

/// What another thread was told when it asked for an inline slot.
private final class Claimed: Sendable {
    let slot = Atomic<Bool>(true)
}
