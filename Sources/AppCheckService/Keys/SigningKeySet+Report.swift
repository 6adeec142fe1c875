import Basics
import Observability
import Tokens

extension SigningKeySet {
    /// One line per key, as check-config prints the schedule: its field, file, `kid` and algorithm, its state at
    /// `time` (Unix seconds) and the changes to come.
    func scheduleLines(at time: Int64) -> [String] {
        entries.enumerated().map { index, entry in
            "keys.tokenSigning[\(index)]: \(entry.name) (\(entry.privateKey.algorithm.jwsName), kid \(entry.kid)): "
                + "\(entry.state(at: time).rawValue) at \(RFC3339.format(unixSeconds: time)); \(entry.transitions(after: time))"
        }
    }

    /// Keys about to sign that verifiers caching the JWKS may not have yet, if the configuration reached the nodes
    /// only now: `publishFrom` tells when the nodes started publishing a key, and attestd cannot know when they did.
    func lateWarnings(at time: Int64) -> [String] {
        entries.compactMap { entry in
            guard entry.state(at: time) == .next, let signFrom = entry.timing?.signFrom,
                  signFrom - time < rules.minimumPublicationSeconds else { return nil }
            return "\(entry.name) signs from \(RFC3339.format(unixSeconds: signFrom)), less than "
                + "\(Self.duration(rules.minimumPublicationSeconds)) from now: that is safe only if every node has "
                + "published it since its publishFrom; if this configuration is being rolled out now, move publishFrom "
                + "and signFrom later"
        }
    }

    /// Logs each key's state at `time` and its next transitions, and warns about keys that may sign too soon.
    func log(at time: Int64, logger: Logger) {
        for (index, entry) in entries.enumerated() {
            logger.info("token signing key", [
                ("field", "keys.tokenSigning[\(index)]"), ("file", entry.name), ("kid", entry.kid),
                ("alg", entry.privateKey.algorithm.jwsName), ("state", entry.state(at: time).rawValue),
                ("next", entry.transitions(after: time)),
            ])
        }
        for warning in lateWarnings(at: time) { logger.warning("token signing key published late?", [("detail", warning)]) }
    }
}
