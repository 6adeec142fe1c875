/// A complete response. On HTTP/1.1 the server sets `content-length` and `connection` itself and ignores trailers.
public struct HTTPResponse: Sendable {
    /// The status code, e.g. 200.
    public var status: Int
    /// The header fields (no pseudo-headers).
    public var headers: HTTPHeaders
    /// The response body.
    public var body: [UInt8]
    /// HTTP/2 only: fields sent in a trailing HEADERS frame after the body (gRPC puts its status here).
    public var trailers: HTTPHeaders?

    public init(status: Int, headers: HTTPHeaders = .init(), body: [UInt8] = [], trailers: HTTPHeaders? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.trailers = trailers
    }
}
