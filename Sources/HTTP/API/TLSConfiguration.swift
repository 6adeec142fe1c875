/// Where a TLS listener finds its certificate chain and private key (PEM files, read once at server creation).
public struct TLSConfiguration: Sendable {
    /// A PEM file holding the leaf certificate, optionally followed by intermediates.
    public var certificatePath: String
    /// A PEM file holding the private key of the leaf certificate.
    public var privateKeyPath: String

    public init(certificatePath: String, privateKeyPath: String) {
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
    }
}
