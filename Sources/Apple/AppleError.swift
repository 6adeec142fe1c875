/// Why a call to Apple did not succeed. Compare by ``code``; ``message`` is for logs.
public struct AppleError: Error, Sendable, CustomStringConvertible {
    /// The kinds of failure; new cases may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable, CaseIterable {
            case deviceTokenRejected, authorizationRejected, badRequest, unavailable, deadlineExceeded, unexpectedResponse
        }

        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// Apple's 400 naming the device token: bad, expired or from the other environment. The client's fault.
        public static let deviceTokenRejected = Code(.deviceTokenRejected)
        /// Apple refused our developer JWT (400 about the authorization token, or 401): our key or configuration.
        public static let authorizationRejected = Code(.authorizationRejected)
        /// Any other 4xx: our own request was wrong.
        public static let badRequest = Code(.badRequest)
        /// Apple could not be reached or kept answering 429/5xx until the attempts or the deadline ran out.
        public static let unavailable = Code(.unavailable)
        /// The caller's deadline ran out with no answer from Apple: it did not answer in time (hangs) or there was
        /// no time left to ask.
        public static let deadlineExceeded = Code(.deadlineExceeded)
        /// An answer this client does not understand.
        public static let unexpectedResponse = Code(.unexpectedResponse)

        /// Every kind, so that metrics can export each outcome at zero before it happens.
        public static let all: [Code] = Wrapped.allCases.map(Code.init)

        public var description: String { "\(wrapped)" }
    }

    public let code: Code
    /// What happened, with Apple's status and body text when there was one.
    public let message: String
    /// Apple's HTTP status, if Apple answered.
    public let status: Int?

    init(_ code: Code, _ message: String, status: Int? = nil) {
        self.code = code
        self.message = message
        self.status = status
    }

    public var description: String { "\(code): \(message)" }
}
