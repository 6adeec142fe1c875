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
