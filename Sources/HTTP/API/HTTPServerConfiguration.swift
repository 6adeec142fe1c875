/// Listeners, threads and the limits every connection is held to.
public struct HTTPServerConfiguration: Sendable {
    /// Where to accept connections.
    public var listeners: [HTTPListener]
    /// The number of event-loop threads; 0 means one per online CPU.
    public var eventLoopCount: Int
    /// HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS: streams beyond it are refused.
    public var maxConcurrentStreams: UInt32 = 100
    /// The largest header block accepted (HTTP/2: advertised and enforced per stream, 431 over it; HTTP/1.1: total
    /// bytes of names and values, 431 and close over it).
    public var maxHeaderListBytes: Int = 16 * 1024
    /// The largest request body delivered; see ``HTTPRequest/bodyTooLarge``.
    public var maxRequestBodyBytes: Int = 64 * 1024 + 5
    /// Unsent output per connection above which the server stops reading that connection until it drains.
    public var maxBufferedOutputBytes: Int = 1 << 20
    /// Connections with nothing in flight for this long are closed (HTTP/2 with a GOAWAY first).
    public var idleTimeoutSeconds: Int = 300
    /// Connections one peer address may hold open at once; 0 means no limit. Extra connections are closed as
    /// soon as they are accepted.
    public var maxConnectionsPerAddress: Int = 0
    /// A connection must finish its TLS handshake and send its first bytes of HTTP (the HTTP/2 preface or an
    /// HTTP/1.1 request line) within this many seconds, or it is closed: a slot held by a silent peer is a slot lost.
    public var handshakeTimeoutSeconds: Int = 10
    /// A connection that owes output (unsent bytes, or HTTP/2 response data held back by the peer's flow-control
    /// window) and has made no progress sending it for this many seconds (no byte written to the socket, none
    /// taken by the peer) is cut off: a peer that stops reading must not pin responses in memory.
    public var writeStallTimeoutSeconds: Int = 30
    /// Responses must be taken by the peer within this many seconds, or the connection is cut off (HTTP/2 with
    /// GOAWAY(ENHANCE_YOUR_CALM), HTTP/1.1 closed). Two deadlines: an HTTP/2 response body must leave nghttp2 in
    /// full within this long of being ready (a peer that opens its flow-control window a byte at a time, a
    /// WINDOW_UPDATE trickle), and no byte of output may wait in the connection's buffer for the socket longer
    /// than this (a peer that reads its socket a byte at a time through a tiny receive buffer). Both make
    /// progress, so the write-stall timeout alone would never end them. Our responses are a few KiB, which any
    /// honest client takes in well under a second; at most ``maxBufferedOutputBytes`` and 128 KiB in the kernel
    /// wait ahead of any byte, so a client reading at 40 KB/s or more is never cut off by the default (30 s).
    public var responseDrainTimeoutSeconds: Int = 30
    /// A request that has begun must arrive in full within this many seconds (while no other request on the
    /// connection completes), or the connection is cut off: a slowloris peer trickling headers or a body byte by
    /// byte must not hold a slot forever. HTTP/2 gets GOAWAY(ENHANCE_YOUR_CALM) first.
    public var requestTimeoutSeconds: Int = 30
    /// Header fields per request (HTTP/2 header block or HTTP/1.1 head) beyond which it is answered 431.
    public var maxHeaderFields: Int = 100
    /// HTTP/2 frames that cost the server work but carry no request (PING, SETTINGS, WINDOW_UPDATE, PRIORITY,
    /// RST_STREAM, empty DATA, refused streams) a connection may send in a burst; see ``http2FrameRefillPerSecond``.
    public var http2FrameBurst: Int = 1_000
    /// The sustained rate of such frames; each completed response earns a few more. A connection that exceeds its
    /// budget gets GOAWAY(ENHANCE_YOUR_CALM) and is closed.
    public var http2FrameRefillPerSecond: Int = 200

    public init(
        listeners: [HTTPListener], eventLoopCount: Int = 0, maxConcurrentStreams: UInt32 = 100,
        maxHeaderListBytes: Int = 16 * 1024, maxRequestBodyBytes: Int = 64 * 1024 + 5,
        maxBufferedOutputBytes: Int = 1 << 20, idleTimeoutSeconds: Int = 300
    ) {
        self.listeners = listeners
        self.eventLoopCount = eventLoopCount
        self.maxConcurrentStreams = maxConcurrentStreams
        self.maxHeaderListBytes = maxHeaderListBytes
        self.maxRequestBodyBytes = maxRequestBodyBytes
        self.maxBufferedOutputBytes = maxBufferedOutputBytes
        self.idleTimeoutSeconds = idleTimeoutSeconds
    }
}
