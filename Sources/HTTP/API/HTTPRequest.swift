/// A complete request: headers and the whole body, handed to an ``HTTPHandler`` once the last byte has arrived.
public struct HTTPRequest: Sendable {
    /// The method, e.g. `GET` or `POST`.
    public var method: String
    /// The request target: HTTP/2 `:path` or the HTTP/1.1 request-target, including any query.
    public var path: String
    /// HTTP/2 `:authority`, or the HTTP/1.1 `Host` header.
    public var authority: String?
    /// The header fields, without HTTP/2 pseudo-headers.
    public var headers: HTTPHeaders
    /// The request body (empty when `bodyTooLarge`).
    public var body: [UInt8]
    /// The body exceeded `maxRequestBodyBytes`: the handler is called at once with an empty body, the rest of the
    /// body is discarded, and after the response the HTTP/2 stream is reset or the HTTP/1.1 connection closed.
    public var bodyTooLarge: Bool
    /// The protocol the request arrived over.
    public var version: HTTPVersion
    /// Whether the connection is TLS.
    public var isTLS: Bool
    /// The peer's address, `host:port` (IPv6 hosts in brackets).
    public var remoteAddress: String
    /// The position, in ``HTTPServerConfiguration/listeners``, of the listener the request arrived on.
    public var listenerIndex: Int
    /// The client's certificate, verified against the listener's client CAs (mutual TLS); nil without one.
    public var clientCertificate: ClientCertificate?
    /// ``MonotonicClock`` time when the request became complete.
    public var receivedAtNanos: UInt64

    public init(
        method: String, path: String, authority: String? = nil, headers: HTTPHeaders = .init(), body: [UInt8] = [],
        bodyTooLarge: Bool = false, version: HTTPVersion = .http2, isTLS: Bool = false, remoteAddress: String = "",
        listenerIndex: Int = 0, clientCertificate: ClientCertificate? = nil, receivedAtNanos: UInt64 = 0
    ) {
        self.listenerIndex = listenerIndex
        self.clientCertificate = clientCertificate
        self.method = method
        self.path = path
        self.authority = authority
        self.headers = headers
        self.body = body
        self.bodyTooLarge = bodyTooLarge
        self.version = version
        self.isTLS = isTLS
        self.remoteAddress = remoteAddress
        self.receivedAtNanos = receivedAtNanos
    }
}
