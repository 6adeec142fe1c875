import HTTP
import Observability

/// The TLS listeners' counters: handshakes, the resumed ones, and the connections whose records the kernel took
/// (kTLS), by direction.
struct TLSMetrics: MetricFamily {
    /// Weak, as in ``ShedMetrics``: the server's router holds the registry that holds this.
    weak let server: HTTPServer?

    func render(into output: inout String) {
        guard let server else { return }
        output += "# HELP attestd_tls_handshakes_total TLS handshakes completed.\n"
        output += "# TYPE attestd_tls_handshakes_total counter\n"
        output += "attestd_tls_handshakes_total \(server.tlsHandshakes)\n"
        output += "# HELP attestd_tls_resumed_handshakes_total TLS handshakes that resumed a session from a ticket.\n"
        output += "# TYPE attestd_tls_resumed_handshakes_total counter\n"
        output += "attestd_tls_resumed_handshakes_total \(server.tlsResumedHandshakes)\n"
        let kernel = server.tlsKernelConnections
        output += "# HELP attestd_tls_ktls_connections_total TLS connections whose records the kernel protects (kTLS), by direction.\n"
        output += "# TYPE attestd_tls_ktls_connections_total counter\n"
        output += "attestd_tls_ktls_connections_total{direction=\"send\"} \(kernel.send)\n"
        output += "attestd_tls_ktls_connections_total{direction=\"receive\"} \(kernel.receive)\n"
    }
}
