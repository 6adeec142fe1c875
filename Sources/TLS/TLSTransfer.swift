/// What one non-blocking TLS call (a handshake step, a read, a write) did.
public enum TLSTransfer: Sendable, Equatable {
    /// This many bytes moved (a finished handshake step moves 0).
    case bytes(Int)
    /// Nothing now: call again when the socket is readable.
    case wantRead
    /// Nothing now: call again when the socket is writable (a read may need to write first, and the reverse).
    case wantWrite
    /// The peer's clean end (close_notify).
    case closed
    /// The connection failed; nothing more can be read or written.
    case failed(TLSError)
}
