import Basics
import Config
import Crypto
import Foundation
import HTTP
import Observability
import TLS
import Tokens

/// The secrets a node needs, read from the files the configuration names: challenge MAC keys, artifact sealing
/// keys, token signing keys and TLS session ticket keys. With `keys.generateMissing` (development), missing files are created first with
/// fresh keys, mode 0600, so `make run` works on a new checkout and no key is ever committed.
struct KeyMaterial {
    let challengeKeys: [ChallengeKey]
    let artifacts: ArtifactKeyring
    let signingKeys: SigningKeySet
    /// Empty when the configuration names no session ticket key file.
    let sessionTicketKeys: [TLSSessionTicketKey]

    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    /// The key files of `configuration`, the token signing keys scheduled by its rules and checked at `now`
    /// (Unix seconds).
    static func load(_ configuration: Configuration, now: Int64, logger: Logger) throws -> KeyMaterial {
        let keys = configuration.keys
        let tokenAlgorithm = configuration.tokens.algorithm
        if keys.generateMissing { try generateMissing(keys, tokenAlgorithm: tokenAlgorithm, logger: logger) }
        let challengeKeys = try ChallengeKeyFile.load(path: keys.challengeKeyPath)
        let artifacts: ArtifactKeyring
        do {
            artifacts = try ArtifactKeyring(keyFile: keys.artifactKeyPath)
        } catch {
            throw Problem(description: "\(keys.artifactKeyPath): \(error)")
        }
        let signingKeys: SigningKeySet
        do {
            signingKeys = try SigningKeySet(
                pemFiles: keys.tokenSigning.map { ($0.path, $0.timing) }, signingWith: tokenAlgorithm,
                rules: SigningKeyRotationRules(configuration), checkedAt: now)
        } catch {
            throw Problem(description: "keys.tokenSigning: \(error)")
        }
        let sessionTicketKeys = try keys.sessionTicketKeyPath.map { try SessionTicketKeyFile.load(path: $0) } ?? []
        return KeyMaterial(challengeKeys: challengeKeys, artifacts: artifacts, signingKeys: signingKeys,
                           sessionTicketKeys: sessionTicketKeys)
    }

    private static func generateMissing(_ keys: Configuration.Keys, tokenAlgorithm: SigningAlgorithm, logger: Logger) throws {
        var files: [(String, () throws -> String)] = [
            (keys.challengeKeyPath, { Keygen.challengeKeyJSON() }),
            (keys.artifactKeyPath, { Keygen.artifactKeyJSON() }),
        ]
        if let tickets = keys.sessionTicketKeyPath {
            files.append((tickets, { Keygen.sessionTicketKeyJSON() }))
        }
        if let signing = keys.tokenSigningKeyPaths.last {
            files.append((signing, { try PrivateKey.generate(tokenAlgorithm).pem() }))
        }
        for (path, contents) in files where !FileManager.default.fileExists(atPath: path) {
            try writePrivate(path, try contents())
            logger.warning("generated a development key (keys.generateMissing)", [("path", path)])
        }
    }

    /// Writes `text` to `path` readable by the owner only, creating the directory (0700) if needed.
    static func writePrivate(_ path: String, _ text: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        do {
            try AtomicFile.write(text, to: path, mode: 0o600)
        } catch {
            throw Problem(description: "cannot create the key file \(error)")
        }
    }
}
