import HTTP
import Observability
import VerifierPool

/// `attestd_shed_total{reason}`: work refused or connections cut off to protect everyone else, from the admission
/// control, the verifier pool and the HTTP server's abuse defences, read at scrape time.
struct ShedMetrics: MetricFamily {
    let admission: AdmissionControl
    let pool: VerifierPool
    /// Weak: the server's handler (the router) holds the registry that holds this, and a strong reference back
    /// would make a cycle that keeps a stopped service alive.
    weak let server: HTTPServer?

    func render(into output: inout String) {
        let name = "attestd_shed_total"
        output += "# HELP \(name) Requests shed and connections cut off under overload or abuse, by reason.\n"
        output += "# TYPE \(name) counter\n"
        guard let server else { return }
        let abuse = server.abuseCounts
        let samples: [(String, Int)] = [
            ("connections_per_address", abuse.refusedConnections),
            ("enhance_your_calm", abuse.calmedConnections),
            ("expensive_over_high_water", admission.shedForOverload.load(ordering: .relaxed)),
            ("handshake_timeout", abuse.handshakeTimeouts),
            ("slow_request", abuse.slowRequests),
            ("verifier_queue_full", pool.refusedCount),
            ("write_stall", abuse.stalledConnections),
        ]
        for (reason, value) in samples {
            output += "\(name){reason=\"\(reason)\"} \(value)\n"
        }
    }
}
