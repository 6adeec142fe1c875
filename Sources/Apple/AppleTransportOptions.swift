/// How the client talks to Apple: trust, timeouts, retries and connection reuse.
public struct AppleTransportOptions: Sendable {
    /// A PEM bundle of CAs to trust instead of the system's (the stand-in's self-signed certificate in tests).
    public var caBundlePath: String?
    /// Connection establishment, TLS included.
    public var connectTimeoutMillis: Int = 5_000
    /// One attempt, from start to the last byte.
    public var requestTimeoutMillis: Int = 10_000
    /// Attempts in all, the first included, on 429, 5xx and transport failures.
    public var maxAttempts: Int = 4
    /// The first backoff; each retry doubles it, and the wait is drawn uniformly below it (full jitter).
    public var baseBackoffMillis: Int = 100
    /// The longest single backoff.
    public var maxBackoffMillis: Int = 2_000
    /// Easy handles kept for reuse: each keeps its connections to Apple alive between calls.
    public var pooledHandles: Int = 4

    public init(caBundlePath: String? = nil) {
        self.caBundlePath = caBundlePath
    }
}
