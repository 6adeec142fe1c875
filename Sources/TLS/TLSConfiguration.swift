/// Where a TLS listener finds its certificate chain and private key (PEM files, read once at server creation), which
/// client certificates it accepts, and the keys that protect its session tickets.
public struct TLSConfiguration: Sendable {
    /// A PEM file holding the leaf certificate, optionally followed by intermediates.
    public var certificatePath: String
    /// A PEM file holding the private key of the leaf certificate.
    public var privateKeyPath: String
    /// A PEM bundle of the CAs whose client certificates this listener accepts (mutual TLS), or nil to ask for none.
    /// A client may still connect without a certificate (callers with a bearer token, Prometheus); one that presents
    /// a certificate that does not chain to these CAs fails the handshake.
    public var clientCertificateAuthoritiesPath: String?
    /// The keys that encrypt and authenticate session tickets, oldest first: the last one protects new tickets, all of
    /// them open tickets. Every node of a cluster holds the same keys, so a client resumes on any node. Empty: the
    /// listener makes a random key of its own at start, and its tickets resume on this process only.
    public var sessionTicketKeys: [TLSSessionTicketKey]

    public init(certificatePath: String, privateKeyPath: String, clientCertificateAuthoritiesPath: String? = nil,
                sessionTicketKeys: [TLSSessionTicketKey] = []) {
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
        self.clientCertificateAuthoritiesPath = clientCertificateAuthoritiesPath
        self.sessionTicketKeys = sessionTicketKeys
    }
}
