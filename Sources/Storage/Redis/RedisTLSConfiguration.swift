/// TLS to Redis: the server's certificate is always verified, against `caFilePath` or the system's trust store, and
/// must name `serverName`; a client certificate is presented when the server requires one (mutual TLS).
public struct RedisTLSConfiguration: Sendable, Equatable {
    /// PEM file of the CAs that may sign the server's certificate; nil uses the system's default trust store.
    public var caFilePath: String?
    /// The name (DNS name or IP address) the server's certificate must carry, also sent as SNI when it is a DNS
    /// name; nil uses the configured host.
    public var serverName: String?
    /// PEM certificate chain presented to the server, for mutual TLS; set together with `privateKeyPath`.
    public var certificatePath: String?
    /// PEM private key of `certificatePath`.
    public var privateKeyPath: String?

    public init(caFilePath: String? = nil, serverName: String? = nil, certificatePath: String? = nil,
                privateKeyPath: String? = nil) {
        self.caFilePath = caFilePath
        self.serverName = serverName
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
    }
}
