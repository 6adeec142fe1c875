import Foundation

extension Configuration.Verifier {
    /// The verifier threads to start: `threads` when set; otherwise one per core, and two per core with Redis. A
    /// thread that sends a batch of writes to Redis waits for the reply, and with one thread per core that core has
    /// nothing to run meanwhile: at saturation a quarter of a core sat idle, and ES256 assertions ran 10–30 % faster
    /// with two threads per core (BENCHMARKS.md, third session).
    /// - Parameter cores: the cores to count on; nil counts this machine's.
    public func effectiveThreads(store: Configuration.Store, cores: Int? = nil) -> Int {
        guard threads == 0 else { return threads }
        let cores = cores ?? ProcessInfo.processInfo.activeProcessorCount
        if case .redis = store { return 2 * cores }
        return cores
    }
}
