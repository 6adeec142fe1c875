internal import COpenSSL

/// A TLS session a finished client connection hands to the next one, which offers it to resume
/// (``TLSClientConnection/session()``).
public final class TLSSession {
    let session: OpaquePointer

    init(_ session: OpaquePointer) { self.session = session }

    deinit { SSL_SESSION_free(session) }
}
