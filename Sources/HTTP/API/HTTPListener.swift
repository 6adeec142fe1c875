public import TLS

/// One address to accept connections on: cleartext (h2c prior knowledge or HTTP/1.1) or TLS (ALPN h2, http/1.1).
public struct HTTPListener: Sendable {
    /// A numeric IPv4 or IPv6 address, e.g. `127.0.0.1`, `0.0.0.0` or `::`.
    public var host: String
    /// The TCP port; 0 lets the kernel choose (see ``HTTPServer/boundAddresses``).
    public var port: Int
    /// TLS settings, or nil for cleartext.
    public var tls: TLSConfiguration?

    public init(host: String, port: Int, tls: TLSConfiguration? = nil) {
        self.host = host
        self.port = port
        self.tls = tls
    }
}
