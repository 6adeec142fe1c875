/// What an ``HTTP2ClientSession`` tells its owner, from inside ``HTTP2ClientSession/receive(_:)`` and
/// ``HTTP2ClientSession/produce(into:until:)``. A delegate must not call back into the session's `receive` or
/// `produce` from here.
public protocol HTTP2ClientDelegate: AnyObject {
    /// A field of `stream`'s response headers, or of its trailers (`isTrailer`: a HEADERS block after the first).
    func header(stream: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, isTrailer: Bool)
    /// A piece of `stream`'s response body.
    func data(stream: Int32, _ bytes: UnsafeBufferPointer<UInt8>)
    /// `stream` ended: `errorCode` 0 (NO_ERROR) when it finished, else the RST_STREAM (or GOAWAY) code.
    func closed(stream: Int32, errorCode: UInt32)
    /// The next bytes of `stream`'s request body (submitted with `hasBody`), written into `buffer`.
    func body(stream: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>) -> HTTP2BodyChunk
    /// The server sent GOAWAY: streams above `lastStreamID` were not processed.
    func goAway(lastStreamID: Int32, errorCode: UInt32)
}

extension HTTP2ClientDelegate {
    /// Requests without a body send none.
    public func body(stream: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>) -> HTTP2BodyChunk {
        .bytes(0, endsStream: true)
    }

    public func goAway(lastStreamID: Int32, errorCode: UInt32) {}
}

/// A piece of a request body, as a delegate hands it to the session.
public enum HTTP2BodyChunk: Sendable, Equatable {
    /// This many bytes were written into the buffer; `endsStream`: they are the body's last.
    case bytes(Int, endsStream: Bool)
    /// Nothing yet: the stream stays open and sends nothing more until resumed (``HTTP2ClientSession/resumeBody(stream:)``).
    case later
}
