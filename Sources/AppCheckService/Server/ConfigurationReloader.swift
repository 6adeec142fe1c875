import Basics
import Config
import Dispatch
import Foundation
import Observability
import Synchronization

/// Reloads the configuration file on request (SIGHUP), on a thread of its own, never an event loop: reads and
/// validates the file, reads the key files it names, builds a whole new ``ServingGeneration``, and only when all of
/// that succeeded installs it in the router. A file that fails any step is refused, with the reason in the log, and
/// the running generation stays. Requests already dispatched finish on the generation they started with.
///
/// Sections that only a restart can apply (``Configuration/sections``) keep their running values; each one the
/// file changes is logged by name as needing a restart, on every reload until the process restarts.
///
/// Every reload that is applied is a new generation, even when the file did not change: the key files it names
/// are read again (a PEM replaced under the same name is a change the configuration's text does not show), and
/// `attestd_config_generation` going up tells an operator that their SIGHUP was taken.
final class ConfigurationReloader: Sendable {
    /// What a reload did.
    enum Outcome: Equatable, Sendable {
        /// The file was applied as this generation.
        case applied(generation: Int)
        /// The file was refused for these reasons; the running generation stays.
        case refused([String])
    }

    private let path: String
    private let builder: GenerationBuilder
    private let router: ServiceRouter
    private let gatewayCache: GatewayCacheMetric
    let metrics: ReloadMetrics
    private let logger: Logger
    /// Whether the receipt refresher runs: it keeps the apps it started with.
    private let refresherRunning: Bool
    /// The configuration the running generation was built from (restart-only sections as at start). Held for the
    /// whole of a reload, so reloads never interleave.
    private let running: Mutex<Configuration>
    private let pending = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)

    init(path: String, running: Configuration, builder: GenerationBuilder, router: ServiceRouter,
         gatewayCache: GatewayCacheMetric, metrics: ReloadMetrics, refresherRunning: Bool, logger: Logger) {
        self.path = path
        self.running = Mutex(running)
        self.builder = builder
        self.router = router
        self.gatewayCache = gatewayCache
        self.metrics = metrics
        self.refresherRunning = refresherRunning
        self.logger = logger
    }

    /// The configuration the running generation was built from.
    var configuration: Configuration { running.withLock { $0 } }

    /// Starts the thread that reloads when asked.
    func start() {
        let thread = Thread { [self] in
            ThreadName.setCurrent("config-reload")
            while true {
                wake.wait()
                pending.store(false, ordering: .sequentiallyConsistent)
                _ = reload()
            }
        }
        thread.start()
    }

    /// Asks the reload thread for a reload, without waiting for it. Requests made while one runs are served by one
    /// more reload after it, so the last file written is the one read.
    func requestReload() {
        if !pending.exchange(true, ordering: .sequentiallyConsistent) { wake.signal() }
    }

    /// Reads, validates and applies the file now, on the calling thread.
    func reload() -> Outcome {
        running.withLock { running in
            let loaded: Configuration
            do {
                loaded = try Configuration.load(path: path)
            } catch {
                return refuse(error.problems)
            }
            let restartOnly = loaded.changedSections(comparedWith: running).filter { !$0.reloadable }
            let applied = running.applyingReloadable(from: loaded)
            let number = metrics.generation + 1
            let generation: ServingGeneration
            let signingKid: String
            do {
                // A reload never writes key files (keys.generateMissing is for a first start) and leaves the TLS
                // session-ticket keys to the listeners that read them at start.
                var keyFiles = applied
                keyFiles.keys.generateMissing = false
                keyFiles.keys.sessionTicketKeyPath = nil
                let now = TimeSource.system.unixSeconds()
                let keys = try KeyMaterial.load(keyFiles, now: now, logger: logger)
                generation = try builder.build(applied, number: number, keys: keys)
                keys.signingKeys.log(at: now, logger: logger)
                signingKid = keys.signingKeys.signer(at: now)?.kid ?? "none"
            } catch {
                return refuse(["\(error)"])
            }
            let changed = applied.changedSections(comparedWith: running).map(\.name)
            router.install(generation)
            gatewayCache.use(generation.gateway?.cache)
            metrics.applied(generation: number, loadedAt: Date().timeIntervalSince1970)
            running = applied
            logger.info("configuration reloaded", [
                ("generation", String(number)), ("path", path),
                ("changed", changed.isEmpty ? "none" : changed.joined(separator: ",")),
            ])
            for section in restartOnly {
                logger.warning("configuration change needs a restart: not applied", [("section", section.name)])
            }
            if refresherRunning, changed.contains("projects") {
                logger.warning("configuration change needs a restart: the receipt refresher keeps the apps it started with",
                               [("section", "projects")])
            }
            if changed.contains("tokens") { AttestdService.warnAboutTokenAlgorithm(applied.tokens.algorithm, signingKid: signingKid, logger: logger) }
            if changed.contains("callers"), applied.callers.isEmpty {
                logger.warning("no callers configured: VerifyAppCheckToken, DeviceStateService and KeyService refuse every call")
            }
            // Last, so that the lines about this reload are written at the level it was asked for under.
            Logger.minimumLevel = applied.logLevel
            return .applied(generation: number)
        }
    }

    private func refuse(_ reasons: [String]) -> Outcome {
        metrics.refused()
        logger.error("configuration reload refused: the running configuration stays", [
            ("generation", String(metrics.generation)), ("path", path), ("reason", reasons.joined(separator: "; ")),
        ])
        return .refused(reasons)
    }
}

extension Error {
    /// The problems a configuration error lists, or this error's description.
    fileprivate var problems: [String] {
        (self as? ConfigurationError)?.problems ?? ["\(self)"]
    }
}
