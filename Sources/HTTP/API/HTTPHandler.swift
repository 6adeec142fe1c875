/// Answers requests. One handler serves every connection of an ``HTTPServer``, from all of its loop threads.
public protocol HTTPHandler: Sendable {
    /// Called on the connection's loop thread when a request is complete. Must not block: cheap work answers
    /// inline; expensive work goes to another thread, which calls `responder.respond` later. `turn` is the loop
    /// turn this call runs in: it may grant one piece of short work per turn to run inline (``LoopTurn``).
    func handle(_ request: HTTPRequest, responder: HTTPResponder, turn: LoopTurn)

    /// The whole size a request's body announces in its first bytes (a length prefix), or nil when its framing
    /// announces none or not enough of the body has arrived yet. Asked on the loop thread, for HTTP/2 streams
    /// whose body is still arriving, after each DATA frame until it gives a size: a body announced over
    /// ``HTTPServerConfiguration/maxRequestBodyBytes`` is refused at once as ``HTTPRequest/bodyTooLarge``, where
    /// a peer that keeps the stream open would otherwise hold it until the request timeout. Must be cheap and must
    /// not answer. The default announces nothing.
    func announcedBodySize(headers: HTTPHeaders, bodyPrefix: [UInt8]) -> Int?
}

extension HTTPHandler {
    public func announcedBodySize(headers: HTTPHeaders, bodyPrefix: [UInt8]) -> Int? { nil }
}
