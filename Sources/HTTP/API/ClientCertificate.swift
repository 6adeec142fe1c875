public import Crypto

/// A client certificate that chained to a listener's client CAs during the TLS handshake (mutual TLS). Read once
/// per connection, at the end of its handshake, and shared by every request on it.
public struct ClientCertificate: Sendable {
    /// The names the certificate is issued to: its subjectAltName's DNS names and URIs, then its subject's common
    /// name (see `Certificate.identityNames`).
    public let names: [String]
    /// The subject, one line in RFC 2253 order, for logs.
    public let subject: String

    public init(names: [String], subject: String) {
        self.names = names
        self.subject = subject
    }

    /// The names and subject of a certificate the TLS handshake verified.
    public init(_ certificate: Certificate) {
        self.init(names: certificate.identityNames, subject: certificate.subject)
    }
}
