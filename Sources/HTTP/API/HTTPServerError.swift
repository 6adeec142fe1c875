/// Why an ``HTTPServer`` could not be created or started. Compare errors by ``code``; the message names the
/// listener and the cause.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure; new kinds may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case invalidConfiguration, tlsSetupFailed, bindFailed, systemResourceFailed
        }
        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// A configuration value is out of range (bad host, port, limit).
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// A certificate or key could not be loaded, or does not match.
        public static let tlsSetupFailed = Code(.tlsSetupFailed)
        /// A listening socket could not be created, bound or put into listen mode (e.g. address in use).
        public static let bindFailed = Code(.bindFailed)
        /// epoll, eventfd, timerfd or a thread could not be created.
        public static let systemResourceFailed = Code(.systemResourceFailed)

        public var description: String { "\(wrapped)" }
    }

    /// The kind of failure.
    public let code: Code
    /// What failed, naming the listener when there is one, and why.
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "HTTPServerError.\(code): \(message)" }

    public static func == (lhs: HTTPServerError, rhs: HTTPServerError) -> Bool { lhs.code == rhs.code }
}
