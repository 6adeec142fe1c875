package import Tokens

/// The file of challenge MAC keys: `{"keys":[{"id":1,"secret":"<base64 of 32+ bytes>"}, ...]}`. The last key
/// issues challenges; the others still open challenges they issued, so a key rotates by appending a new one and
/// removing the old one after a challenge lifetime. Every node of a cluster must hold the same file.
package enum ChallengeKeyFile {
    /// Reads the keys at `path`.
    package static func load(path: String) throws -> [ChallengeKey] {
        try SecretKeyListFile.load(
            path: path, kind: "challenge key", ids: 0...255,
            requirement: "a base64 secret of at least \(ChallengeKey.minimumSecretCount) bytes"
        ) { ChallengeKey(id: UInt8($0.id), secret: $0.secret) }
    }
}
