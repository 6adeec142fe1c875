/// How a TLS client connects: TLS 1.2 or later, the server's certificate verified against a CA file or the system's
/// trust store (or, for a benchmark against a self-signed server, not at all), a client certificate for mutual TLS,
/// and the application protocols offered by ALPN.
public struct TLSClientConfiguration: Sendable, Equatable {
    /// PEM file of the CAs that may sign the server's certificate; nil uses the system's default trust store.
    public var caFilePath: String?
    /// Whether the server's certificate is checked (chain and name). False accepts any server: for benchmarks and
    /// tests against a throwaway self-signed certificate only.
    public var verifiesServer: Bool
    /// PEM certificate chain presented to the server, for mutual TLS; set together with `privateKeyPath`.
    public var certificatePath: String?
    /// PEM private key of `certificatePath`.
    public var privateKeyPath: String?
    /// The protocols offered by ALPN, most wanted first (e.g. `["h2"]`); empty offers none.
    public var applicationProtocols: [String]
    /// The newest version offered; nil: the newest OpenSSL speaks.
    public var maximumVersion: TLSVersion?
    /// The TLS 1.3 cipher suites offered, in OpenSSL's colon-separated syntax; nil: OpenSSL's defaults.
    public var tls13CipherSuites: String?

    public init(caFilePath: String? = nil, verifiesServer: Bool = true, certificatePath: String? = nil,
                privateKeyPath: String? = nil, applicationProtocols: [String] = [], maximumVersion: TLSVersion? = nil,
                tls13CipherSuites: String? = nil) {
        self.caFilePath = caFilePath
        self.verifiesServer = verifiesServer
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
        self.applicationProtocols = applicationProtocols
        self.maximumVersion = maximumVersion
        self.tls13CipherSuites = tls13CipherSuites
    }
}
