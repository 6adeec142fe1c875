public import Config
import Crypto
import Foundation
import Tokens

/// What `attestd check-config` finds about the key files a configuration names, before `serve` needs them: each
/// must exist (or be one `keys.generateMissing` will create), be readable by this user, and parse as its kind.
public struct KeyFileCheck: Sendable {
    /// One line per file that `serve` would refuse, naming the field and the path.
    public let problems: [String]
    /// One line per file that does not exist yet and will be generated at start, and per key that may sign before
    /// verifiers have it if the configuration is rolled out now.
    public let notes: [String]
    /// One line per token signing key: its state at the time of the check and the changes to come; empty when the
    /// keys could not all be read.
    public let schedule: [String]

    /// Checks the key files of `configuration` as `serve` would load them at `now` (Unix seconds).
    public init(_ configuration: Configuration, now: Int64) {
        let keys = configuration.keys
        let tokenAlgorithm = configuration.tokens.algorithm
        var problems: [String] = []
        var notes: [String] = []
        var signingKeys: [SigningKeySet.Key] = []
        var files: [(field: String, path: String, generated: Bool, parse: (String) throws -> Void)] = [
            ("keys.challengeKey", keys.challengeKeyPath, true, { _ = try ChallengeKeyFile.load(path: $0) }),
            ("keys.artifactKey", keys.artifactKeyPath, true, { path in
                do { _ = try ArtifactKeyring(keyFile: path) } catch { throw KeyMaterial.Problem(description: "\(error)") }
            }),
        ]
        if let tickets = keys.sessionTicketKeyPath {
            files.append(("keys.sessionTicketKey", tickets, true, { _ = try SessionTicketKeyFile.load(path: $0) }))
        }
        for (index, configured) in keys.tokenSigning.enumerated() {
            // `generateMissing` creates only the last one: the key that signs.
            files.append(("keys.tokenSigning[\(index)]", configured.path, index == keys.tokenSigning.count - 1, { path in
                do {
                    signingKeys.append(SigningKeySet.Key(try SigningKeySet.key(pemFile: path), timing: configured.timing, name: path))
                } catch {
                    throw KeyMaterial.Problem(description: "\(error)")
                }
            }))
        }
        for file in files {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory) else {
                if keys.generateMissing && file.generated {
                    notes.append("\(file.field): \(file.path) does not exist; it will be generated at start (keys.generateMissing)")
                } else {
                    problems.append("\(file.field): \(file.path) does not exist (run `attestd keygen`, or set keys.generateMissing for development)")
                }
                continue
            }
            guard !isDirectory.boolValue else {
                problems.append("\(file.field): \(file.path) is a directory, not a key file")
                continue
            }
            guard access(file.path, R_OK) == 0 else {
                problems.append("\(file.field): \(file.path) cannot be read by this user (\(String(cString: strerror(errno))))")
                continue
            }
            do {
                try file.parse(file.path)
            } catch {
                problems.append("\(file.field): \(file.path) is not a valid key file: \(error)")
            }
        }
        // Every listed key parsed: its schedule is checked as `serve` would check it now.
        var schedule: [String] = []
        if !signingKeys.isEmpty, signingKeys.count == keys.tokenSigning.count {
            do {
                let set = try SigningKeySet(
                    keys: signingKeys, signingWith: tokenAlgorithm, rules: SigningKeyRotationRules(configuration), checkedAt: now)
                schedule = set.scheduleLines(at: now)
                notes += set.lateWarnings(at: now).map { "keys.tokenSigning: \($0)" }
            } catch where error == .noKeyForAlgorithm {
                problems.append("keys.tokenSigning: no key signs \(tokenAlgorithm.jwsName), the algorithm of tokens.algorithm")
            } catch {
                problems.append("keys.tokenSigning: \(error)")
            }
        }
        self.problems = problems
        self.notes = notes
        self.schedule = schedule
    }
}
