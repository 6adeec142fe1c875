import Observability
import Storage

/// Opens the state store the configuration names.
enum StateStores {
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    static func open(_ store: Configuration.Store, logger: Logger) throws -> any StateStore {
        switch store {
        case .memory:
            logger.warning("state is kept in memory: a restart forgets consumed challenges, counters and keys (set store)")
            return MemoryStateStore(clock: { ExchangeContext.now() })
        case .sqlite, .redis:
            throw Problem(description: "store: the SQLite and Redis stores are not in this build yet; use {\"kind\":\"memory\"}")
        }
    }
}
