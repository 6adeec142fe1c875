internal import COpenSSL
internal import CShims
import Crypto

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

    /// The certificate of a finished handshake, when the client sent one and OpenSSL verified it.
    init?(verifiedBy ssl: OpaquePointer) {
        guard SSL_get_verify_result(ssl) == X509_V_OK, let peer = SSL_get1_peer_certificate(ssl) else { return nil }
        defer { X509_free(peer) }
        var der: UnsafeMutablePointer<UInt8>? = nil
        let count = i2d_X509(peer, &der)
        defer { cshims_OPENSSL_free(der) }
        guard count > 0, let der,
              let certificate = try? Certificate(derEncoded: Array(UnsafeBufferPointer(start: der, count: Int(count))))
        else { return nil }
        self.init(names: certificate.identityNames, subject: certificate.subject)
    }
}
