import Crypto
import TLS

/// A connection's TLS, as the connection sees it: the TLS module's stream, its outcomes as `IOResult`s, whether a
/// read waits for the socket to become writable, and the client certificate in the form requests carry.
/// Confined to the connection's loop thread.
final class TLSStream {
    private let stream: TLSServerStream
    /// A read needs the socket to become writable first (handshake output that did not fit).
    private(set) var readWantsWrite = false
    /// The client's verified certificate (see `TLSServerStream.clientCertificate`), read once when the handshake
    /// ends and shared by every request on the connection.
    private(set) var clientCertificate: ClientCertificate?
    private var handshakeNoted = false

    /// See `TLSServerStream.maxRecordPlaintext`.
    static let maxRecordPlaintext = TLSServerStream.maxRecordPlaintext

    init?(context: TLSServerContext, fd: Int32) {
        guard let stream = TLSServerStream(context: context, fd: fd) else { return nil }
        self.stream = stream
    }

    /// The protocol chosen by ALPN (`h2`, `http/1.1`), or nil if none was negotiated (or not yet).
    var negotiatedProtocol: String? { stream.negotiatedProtocol }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        readWantsWrite = false
        let result = stream.read(into: buffer)
        noteHandshake()
        if case .wantWrite = result { readWantsWrite = true }
        return IOResult(result)
    }

    /// Writes `bytes`; a write that returned `.wouldBlock` must be retried with at least the same bytes.
    func write(_ bytes: UnsafeRawBufferPointer) -> IOResult {
        let result = stream.write(bytes)
        noteHandshake()
        return IOResult(result)
    }

    /// Sends close_notify, best effort (the socket is closed or shut right after).
    func shutdown() { stream.shutdown() }

    private func noteHandshake() {
        guard !handshakeNoted, stream.isHandshakeDone else { return }
        handshakeNoted = true
        clientCertificate = stream.clientCertificate.map(ClientCertificate.init)
    }
}
