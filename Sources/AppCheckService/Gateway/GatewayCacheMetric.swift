import Observability
import Synchronization

/// `attestd_gateway_token_cache_total{result}` across configuration generations: each generation's gateway has a
/// cache of its own (a token verified under keys or apps a reload removed must not pass from the cache), so the
/// family sums the current cache's counts and those of the caches it replaced, and stays a counter.
final class GatewayCacheMetric: MetricFamily {
    private struct State {
        var current: VerifiedTokenCache?
        var retiredHits = 0
        var retiredMisses = 0
    }

    private let state = Mutex(State())

    /// Counts `cache` from now on, adding what the cache it replaces has counted to the totals.
    func use(_ cache: VerifiedTokenCache?) {
        state.withLock { state in
            if let retired = state.current, retired !== cache {
                let (hits, misses) = retired.hitsAndMisses
                state.retiredHits += hits
                state.retiredMisses += misses
            }
            state.current = cache
        }
    }

    func render(into output: inout String) {
        let (current, retiredHits, retiredMisses) = state.withLock { ($0.current, $0.retiredHits, $0.retiredMisses) }
        let counts: (hits: Int, misses: Int) = current?.hitsAndMisses ?? (0, 0)
        let hits = retiredHits + counts.hits
        let misses = retiredMisses + counts.misses
        output += "# HELP attestd_gateway_token_cache_total Gateway lookups in the verified-token cache, by result.\n"
        output += "# TYPE attestd_gateway_token_cache_total counter\n"
        output += "attestd_gateway_token_cache_total{result=\"hit\"} \(hits)\n"
        output += "attestd_gateway_token_cache_total{result=\"miss\"} \(misses)\n"
    }
}
