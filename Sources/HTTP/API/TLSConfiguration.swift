/// Where a TLS listener finds its certificate chain and private key (PEM files, read once at server creation), and
/// who protects the records after a TLS 1.3 handshake.
public struct TLSConfiguration: Sendable {
    /// Who protects a connection's records once its handshake is done.
    public enum RecordLayer: String, Sendable, CaseIterable {
        /// attestd's TLS 1.3 record layer (`TLS13Records`): OpenSSL's per-connection state is freed after the
        /// handshake, about 11.5 KB a connection, and no session tickets are issued. TLS 1.2 connections stay with
        /// OpenSSL.
        case attestd
        /// OpenSSL keeps every connection from handshake to close, and issues session tickets.
        case openssl
    }

    /// A PEM file holding the leaf certificate, optionally followed by intermediates.
    public var certificatePath: String
    /// A PEM file holding the private key of the leaf certificate.
    public var privateKeyPath: String
    public var recordLayer: RecordLayer
    /// A PEM bundle of the CAs whose client certificates this listener accepts (mutual TLS), or nil to ask for none.
    /// A client may still connect without a certificate (callers with a bearer token, Prometheus); one that presents
    /// a certificate that does not chain to these CAs fails the handshake.
    public var clientCertificateAuthoritiesPath: String?
    /// Records attestd's record layer protects with one key before it updates its keys (RFC 8446 §5.5: AES-GCM
    /// allows 2^24.5). Internal: tests lower it to see the update happen.
    var recordsPerKey: UInt64 = 1 << 24

    public init(certificatePath: String, privateKeyPath: String, recordLayer: RecordLayer = .attestd,
                clientCertificateAuthoritiesPath: String? = nil) {
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
        self.recordLayer = recordLayer
        self.clientCertificateAuthoritiesPath = clientCertificateAuthoritiesPath
    }
}
