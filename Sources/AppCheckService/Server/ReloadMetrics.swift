import Observability
import Synchronization

/// The loaded configuration, for `/metrics`: `attestd_config_generation` (1 at start, one more for each applied
/// reload), `attestd_config_loaded_timestamp_seconds` (when it was loaded, Unix seconds) and
/// `attestd_config_reloads_total{outcome}` (SIGHUP reloads, `ok` or `refused`; both series from the start).
final class ReloadMetrics: MetricFamily {
    private struct State {
        var generation: Int
        var loadedAt: Double
        var applied = 0
        var refused = 0
    }

    private let state: Mutex<State>

    init(generation: Int, loadedAt: Double) {
        state = Mutex(State(generation: generation, loadedAt: loadedAt))
    }

    /// Counts a reload that installed `generation` at `loadedAt`.
    func applied(generation: Int, loadedAt: Double) {
        state.withLock { state in
            state.generation = generation
            state.loadedAt = loadedAt
            state.applied += 1
        }
    }

    /// Counts a reload refused, which leaves the generation as it was.
    func refused() {
        state.withLock { $0.refused += 1 }
    }

    var generation: Int { state.withLock { $0.generation } }

    func render(into output: inout String) {
        let state = state.withLock { $0 }
        output += "# HELP attestd_config_generation The loaded configuration: 1 at start, one more for each reload applied.\n"
        output += "# TYPE attestd_config_generation gauge\n"
        output += "attestd_config_generation \(state.generation)\n"
        output += "# HELP attestd_config_loaded_timestamp_seconds When the loaded configuration was loaded, in Unix seconds.\n"
        output += "# TYPE attestd_config_loaded_timestamp_seconds gauge\n"
        output += "attestd_config_loaded_timestamp_seconds \(String(format: "%.3f", state.loadedAt))\n"
        output += "# HELP attestd_config_reloads_total Configuration reloads (SIGHUP), by outcome: ok (applied) or refused.\n"
        output += "# TYPE attestd_config_reloads_total counter\n"
        output += "attestd_config_reloads_total{outcome=\"ok\"} \(state.applied)\n"
        output += "attestd_config_reloads_total{outcome=\"refused\"} \(state.refused)\n"
    }
}
