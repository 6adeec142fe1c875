import Basics
import Foundation
package import Tokens

/// The file of challenge MAC keys: `{"keys":[{"id":1,"secret":"<base64 of 32+ bytes>"}, ...]}`. The last key
/// issues challenges; the others still open challenges they issued, so a key rotates by appending a new one and
/// removing the old one after a challenge lifetime. Every node of a cluster must hold the same file.
package enum ChallengeKeyFile {
    package struct Problem: Error, CustomStringConvertible {
        package let description: String
    }

    /// Reads the keys at `path`.
    package static func load(path: String) throws -> [ChallengeKey] {
        guard FileManager.default.fileExists(atPath: path) else {
            throw Problem(description: "\(path): challenge key file does not exist (run `attestd keygen` or set keys.generateMissing)")
        }
        guard let data = FileManager.default.contents(atPath: path),
              let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let entries = root["keys"] as? [[String: Any]], !entries.isEmpty
        else { throw Problem(description: "\(path): must be {\"keys\":[{\"id\":N,\"secret\":\"base64\"}]}") }
        return try entries.enumerated().map { index, entry in
            guard let id = entry["id"] as? Int, (0...255).contains(id),
                  let text = entry["secret"] as? String, let secret = Base64.standard.decode(text),
                  let key = ChallengeKey(id: UInt8(id), secret: secret)
            else {
                throw Problem(description: "\(path): keys[\(index)] needs an id 0-255 and a base64 secret of at least \(ChallengeKey.minimumSecretCount) bytes")
            }
            return key
        }
    }
}
