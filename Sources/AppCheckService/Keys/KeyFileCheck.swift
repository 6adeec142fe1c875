public import Config
public import Crypto
import Foundation
import Tokens

/// What `attestd check-config` finds about the key files a configuration names, before `serve` needs them: each
/// must exist (or be one `keys.generateMissing` will create), be readable by this user, and parse as its kind.
public struct KeyFileCheck: Sendable {
    /// One line per file that `serve` would refuse, naming the field and the path.
    public let problems: [String]
    /// One line per file that does not exist yet and will be generated at start.
    public let notes: [String]

    /// Checks the files of `keys` as `serve` would load them, tokens being signed with `tokenAlgorithm`.
    public init(_ keys: Configuration.Keys, tokenAlgorithm: SigningAlgorithm) {
        var problems: [String] = []
        var notes: [String] = []
        var signingAlgorithms: [SigningAlgorithm] = []
        var files: [(field: String, path: String, generated: Bool, parse: (String) throws -> Void)] = [
            ("keys.challengeKey", keys.challengeKeyPath, true, { _ = try ChallengeKeyFile.load(path: $0) }),
            ("keys.artifactKey", keys.artifactKeyPath, true, { path in
                do { _ = try ArtifactKeyring(keyFile: path) } catch { throw KeyMaterial.Problem(description: "\(error)") }
            }),
        ]
        if let tickets = keys.sessionTicketKeyPath {
            files.append(("keys.sessionTicketKey", tickets, true, { _ = try SessionTicketKeyFile.load(path: $0) }))
        }
        for (index, path) in keys.tokenSigningKeyPaths.enumerated() {
            // `generateMissing` creates only the last one: the key that signs.
            files.append(("keys.tokenSigning[\(index)]", path, index == keys.tokenSigningKeyPaths.count - 1, { path in
                do {
                    let key = try SigningKeySet.key(pemFile: path)
                    signingAlgorithms.append(key.algorithm)
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
        // Every listed key parsed, and none signs with the configured algorithm: `serve` would refuse to start.
        if !signingAlgorithms.isEmpty, signingAlgorithms.count == keys.tokenSigningKeyPaths.count,
           !signingAlgorithms.contains(tokenAlgorithm) {
            problems.append("keys.tokenSigning: no key signs \(tokenAlgorithm.jwsName), the algorithm of tokens.algorithm")
        }
        self.problems = problems
        self.notes = notes
    }
}
