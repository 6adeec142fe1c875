import Foundation

extension Configuration.Verifier {
    /// The verifier threads to start: `threads` when set; otherwise one per core, whatever the store. (With Redis
    /// they were two per core while a verifier thread sent its batch of writes and waited for the reply; the Redis
    /// store now sends and waits on I/O threads of its own, so a verifier never waits for Redis. In the store bench
    /// with a signature's CPU per exchange, two verifiers on two cores stored 15,000–17,700 assertions/s, four
    /// 14,300–15,900/s.)
    /// - Parameter cores: the cores to count on; nil counts this machine's.
    public func effectiveThreads(cores: Int? = nil) -> Int {
        guard threads == 0 else { return threads }
        return cores ?? ProcessInfo.processInfo.activeProcessorCount
    }
}
