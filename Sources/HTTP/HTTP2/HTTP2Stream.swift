/// One HTTP/2 request/response exchange, from its first HEADERS frame to its close.
///
/// Only its connection's event loop thread touches it, so the runtime's exclusivity checks on its collections (a
/// check per header field and per DATA frame, which the optimizer cannot prove away across the appends) are off.
final class HTTP2Stream {
    let id: Int32
    var method = ""
    var path = ""
    var authority: String?
    @exclusivity(unchecked) var headers: [(name: String, value: String)] = []
    /// Header block size so far, counted as SETTINGS_MAX_HEADER_LIST_SIZE does (name + value + 32 per field).
    var headerListBytes = 0
    var headerFields = 0
    @exclusivity(unchecked) var body: [UInt8] = []
    var headersTooLarge = false
    var bodyTooLarge = false
    /// The handler has said from the body's first bytes how large the body will be; it is not asked again.
    var bodySizeAnnounced = false
    /// The handler has been given the request (or a 431 is on its way).
    var dispatched = false
    /// The client has ended its side (END_STREAM received).
    var requestEnded = false
    var responded = false
    /// Send RST_STREAM(NO_ERROR) once the response is complete, because the request was not read to its end.
    var resetAfterResponse = false
    /// The stream has closed (answered, or reset by the client): a request still queued for the handler is dropped.
    var closed = false
    /// A response body is being sent (perhaps held back by flow control).
    var sendingBody = false
    /// When the response body was handed to nghttp2 (``MonotonicClock``): the response-drain timeout counts from here.
    var bodySubmittedAt: UInt64 = 0
    @exclusivity(unchecked) var responseBody: [UInt8] = []
    var responseOffset = 0
    var trailers: HTTPHeaders?

    init(id: Int32) { self.id = id }
}
