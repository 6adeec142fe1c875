extension HTTPServer {
    /// How many connections the server has cut off for abuse since it started, by cause.
    public struct AbuseCounts: Sendable, Equatable {
        /// Closed at accept because their peer address already held the most connections allowed.
        public var refusedConnections: Int
        /// HTTP/2 connections ended with GOAWAY(ENHANCE_YOUR_CALM): frame floods, rapid reset, CONTINUATION
        /// floods, responses stalled by flow control.
        public var calmedConnections: Int
        /// Closed because their unsent output made no progress for the write-stall timeout (readers that stopped,
        /// zero windows), an HTTP/2 response body was not taken within the response-drain timeout (window
        /// trickles), or a byte of output waited for the socket longer than that timeout (byte-at-a-time readers).
        public var stalledConnections: Int
        /// Closed because no HTTP arrived within the handshake timeout (silent or garbage TLS peers).
        public var handshakeTimeouts: Int
        /// Cut off because a request took longer than the request timeout to arrive (slowloris).
        public var slowRequests: Int
    }

    /// The counts so far (monotonic; cheap to read, for a metrics scrape).
    public var abuseCounts: AbuseCounts {
        let abuse = context.abuse
        return AbuseCounts(
            refusedConnections: abuse.refusedConnections.load(ordering: .relaxed),
            calmedConnections: abuse.calmedConnections.load(ordering: .relaxed),
            stalledConnections: abuse.stalledConnections.load(ordering: .relaxed),
            handshakeTimeouts: abuse.handshakeTimeouts.load(ordering: .relaxed),
            slowRequests: abuse.slowRequests.load(ordering: .relaxed))
    }
}
