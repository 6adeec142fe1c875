extension Configuration {
    /// `admission`: how much any one client may take, and what is shed first under overload. Every member is
    /// optional; rate limits are off unless their section is present.
    ///
    /// ```json
    /// "admission": {
    ///   "maxConnectionsPerAddress": 256, "handshakeTimeoutSeconds": 10, "writeStallTimeoutSeconds": 30,
    ///   "requestTimeoutSeconds": 30, "responseDrainTimeoutSeconds": 30,
    ///   "maxHeaderFields": 100, "http2FrameBurst": 1000, "http2FramesPerSecond": 200,
    ///   "perAddress": {"requestsPerSecond": 200, "burst": 400},
    ///   "perApp": {"requestsPerSecond": 5000, "burst": 10000},
    ///   "expensiveQueuePercent": 75
    /// }
    /// ```
    public struct Admission: Sendable {
        /// Connections one client IP address may hold open; more are closed at accept. 0: no limit.
        public var maxConnectionsPerAddress: Int = 0
        /// Seconds a connection has to finish its TLS handshake and start speaking HTTP.
        public var handshakeTimeoutSeconds: Int = 10
        /// Seconds a connection's owed output may make no progress (a peer that stopped reading) before it is cut.
        public var writeStallTimeoutSeconds: Int = 30
        /// Seconds a request may take to arrive once begun (slowloris); HTTP/2 peers get GOAWAY(ENHANCE_YOUR_CALM).
        public var requestTimeoutSeconds: Int = 30
        /// Seconds an HTTP/2 peer has to take a response body in full (a WINDOW_UPDATE trickle), and any peer to take
        /// a byte of output from the socket (a byte-at-a-time reader); then cut off, HTTP/2 with
        /// GOAWAY(ENHANCE_YOUR_CALM).
        public var responseDrainTimeoutSeconds: Int = 30
        /// Header fields per request beyond which it is answered 431.
        public var maxHeaderFields: Int = 100
        /// HTTP/2 frames without a request (PING, SETTINGS, WINDOW_UPDATE, RST_STREAM…) a connection may send in a
        /// burst, and per second after it; beyond them it gets GOAWAY(ENHANCE_YOUR_CALM).
        public var http2FrameBurst: Int = 1_000
        public var http2FramesPerSecond: Int = 200
        /// RPCs per second from one client IP address (all methods but health checks); nil: no limit.
        public var perAddress: Rate?
        /// RPCs per second naming one app (every app-scoped method); nil: no limit.
        public var perApp: Rate?
        /// Expensive RPCs (the exchanges) are shed with UNAVAILABLE once the verifier queue is this full
        /// (percent of its capacity); cheap ones (challenges, JWKS, health) never wait in that queue.
        public var expensiveQueuePercent: Int = 75

        public init() {}
    }

    /// A token bucket's settings: a sustained rate and the burst allowed above it.
    public struct Rate: Sendable {
        public var requestsPerSecond: Int
        public var burst: Int

        public init(requestsPerSecond: Int, burst: Int) {
            self.requestsPerSecond = requestsPerSecond
            self.burst = burst
        }
    }

    package static func readAdmission(_ reader: JSONFieldReader?) -> Admission {
        var admission = Admission()
        guard let reader else { return admission }
        reader.rejectUnknownKeys(except: [
            "maxConnectionsPerAddress", "handshakeTimeoutSeconds", "writeStallTimeoutSeconds", "requestTimeoutSeconds",
            "responseDrainTimeoutSeconds", "maxHeaderFields",
            "http2FrameBurst", "http2FramesPerSecond", "perAddress", "perApp", "expensiveQueuePercent",
        ])
        admission.maxConnectionsPerAddress = reader.integer("maxConnectionsPerAddress", default: 0, in: 0...1_000_000)
        admission.handshakeTimeoutSeconds = reader.integer("handshakeTimeoutSeconds", default: 10, in: 1...3_600)
        admission.writeStallTimeoutSeconds = reader.integer("writeStallTimeoutSeconds", default: 30, in: 1...3_600)
        admission.requestTimeoutSeconds = reader.integer("requestTimeoutSeconds", default: 30, in: 1...3_600)
        admission.responseDrainTimeoutSeconds = reader.integer("responseDrainTimeoutSeconds", default: 30, in: 1...3_600)
        admission.maxHeaderFields = reader.integer("maxHeaderFields", default: 100, in: 8...10_000)
        admission.http2FrameBurst = reader.integer("http2FrameBurst", default: 1_000, in: 10...1_000_000)
        admission.http2FramesPerSecond = reader.integer("http2FramesPerSecond", default: 200, in: 1...1_000_000)
        admission.expensiveQueuePercent = reader.integer("expensiveQueuePercent", default: 75, in: 1...100)
        func rate(_ name: String) -> Rate? {
            guard let section = reader.object(name) else { return nil }
            section.rejectUnknownKeys(except: ["requestsPerSecond", "burst"])
            let perSecond = section.integer("requestsPerSecond", default: 100, in: 1...10_000_000)
            return Rate(requestsPerSecond: perSecond, burst: section.integer("burst", default: perSecond, in: 1...10_000_000))
        }
        admission.perAddress = rate("perAddress")
        admission.perApp = rate("perApp")
        return admission
    }
}
