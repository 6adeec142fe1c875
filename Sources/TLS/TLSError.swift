/// Why a TLS context could not be set up, or why a TLS connection failed. Compare errors by ``code``; the message
/// says what was being done and what OpenSSL reported.
public struct TLSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure; new kinds may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: Hashable, Sendable {
            case setupFailed, certificateRefused, truncated, systemCallFailed, protocolFailed
        }
        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// A context or connection could not be made: a file that cannot be loaded, a key that does not match its
        /// certificate, a name OpenSSL refuses.
        public static let setupFailed = Code(.setupFailed)
        /// The peer's certificate did not verify (chain, name or dates); the message says which check failed.
        public static let certificateRefused = Code(.certificateRefused)
        /// The peer closed TCP without close_notify: the stream may have been cut short.
        public static let truncated = Code(.truncated)
        /// A system call on the socket failed (``TLSError/systemError`` holds its errno), or the peer vanished.
        public static let systemCallFailed = Code(.systemCallFailed)
        /// The peer broke the protocol (a bad record, an alert), or OpenSSL failed.
        public static let protocolFailed = Code(.protocolFailed)

        public var description: String { "\(wrapped)" }
    }

    /// The kind of failure.
    public let code: Code
    /// What failed and why, with OpenSSL's reasons when it gave any.
    public let message: String
    /// The errno of a failed system call (``Code/systemCallFailed``); 0 when the peer closed the socket instead.
    public let systemError: Int32

    init(_ code: Code, _ message: String, systemError: Int32 = 0) {
        self.code = code
        self.message = message
        self.systemError = systemError
    }

    public var description: String { "TLSError.\(code): \(message)" }

    public static func == (lhs: TLSError, rhs: TLSError) -> Bool { lhs.code == rhs.code }
}
