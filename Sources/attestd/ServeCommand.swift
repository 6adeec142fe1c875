import AppCheckService
import Basics
import Config
import Observability

/// `attestd serve` and `attestd check-config`.
enum ServeCommand {
    /// Loads the configuration, serves until SIGTERM or SIGINT (reloading the file on SIGHUP), and drains. Exit 0 after a clean shutdown,
    /// 1 when the configuration is invalid or the server cannot start.
    static func run(configPath: String, extraTrustRootPaths: [String]) -> Int32 {
        // First, before any thread exists: every thread inherits the mask, so no SIGTERM (or SIGHUP) can be lost or kill us.
        ProcessSignals.blockInThisProcess()
        let logger = Logger(label: "attestd")
        let configuration: Configuration
        do {
            configuration = try Configuration.load(path: configPath)
        } catch {
            for problem in error.problems { logger.error("invalid configuration", [("problem", problem)]) }
            return 1
        }
        Logger.minimumLevel = configuration.logLevel
        do {
            let service = try AttestdService(configuration: configuration, configurationPath: configPath,
                                             extraTrustRootPaths: extraTrustRootPaths, logger: logger)
            try service.start()
            service.waitUntilStopped()
            logger.info("stopped")
            return 0
        } catch {
            logger.error("cannot start", [("error", "\(error)")])
            return 1
        }
    }

    /// Validates a configuration file and the key files it names: exit 0 and "ok", or exit 1 with one line per
    /// problem, naming its field.
    static func checkConfig(path: String) -> Int32 {
        do {
            let configuration = try Configuration.load(path: path)
            let keyFiles = KeyFileCheck(configuration, now: TimeSource.system.unixSeconds())
            guard keyFiles.problems.isEmpty else {
                for problem in keyFiles.problems { FileHandleOutput.standardError(problem + "\n") }
                return 1
            }
            for note in keyFiles.notes { FileHandleOutput.standardOutput(note + "\n") }
            for line in keyFiles.schedule { FileHandleOutput.standardOutput(line + "\n") }
            let apps = configuration.projects.reduce(0) { $0 + $1.apps.count }
            FileHandleOutput.standardOutput("\(path): ok (\(configuration.listeners.count) listeners, \(configuration.projects.count) projects, \(apps) apps)\n")
            return 0
        } catch {
            for problem in error.problems { FileHandleOutput.standardError(problem + "\n") }
            return 1
        }
    }
}
