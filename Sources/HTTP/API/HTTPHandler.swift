/// Answers requests. One handler serves every connection of an ``HTTPServer``, from all of its loop threads.
public protocol HTTPHandler: Sendable {
    /// Called on the connection's loop thread when a request is complete. Must not block: cheap work answers
    /// inline; expensive work goes to another thread, which calls `responder.respond` later.
    func handle(_ request: HTTPRequest, responder: HTTPResponder)
}
