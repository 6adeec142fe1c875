import Crypto
import Foundation
import Tokens

/// The file of challenge MAC keys: `{"keys":[{"id":1,"secret":"<base64 of 32+ bytes>"}, ...]}`. The last key
/// issues challenges; the others still open challenges they issued, so a key rotates by appending a new one and
/// removing the old one after a challenge lifetime. Every node of a cluster must hold the same file.
enum ChallengeKeyFile {
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    /// Reads the keys at `path`. When the file is missing and `generateMissing` is set (development), writes a
    /// fresh random key there first, readable by the owner only.
    static func load(path: String, generateMissing: Bool) throws -> [ChallengeKey] {
        if !FileManager.default.fileExists(atPath: path) {
            guard generateMissing else {
                throw Problem(description: "\(path): challenge key file does not exist (run `attestd keygen` or set keys.generateMissing)")
            }
            try generate(at: path)
        }
        guard let data = FileManager.default.contents(atPath: path),
              let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let entries = root["keys"] as? [[String: Any]], !entries.isEmpty
        else { throw Problem(description: "\(path): must be {\"keys\":[{\"id\":N,\"secret\":\"base64\"}]}") }
        return try entries.enumerated().map { index, entry in
            guard let id = entry["id"] as? Int, (0...255).contains(id),
                  let text = entry["secret"] as? String, let secret = Data(base64Encoded: text),
                  let key = ChallengeKey(id: UInt8(id), secret: [UInt8](secret))
            else {
                throw Problem(description: "\(path): keys[\(index)] needs an id 0-255 and a base64 secret of at least \(ChallengeKey.minimumSecretCount) bytes")
            }
            return key
        }
    }

    /// Writes a new key file with one random key, mode 0600, creating its directory (mode 0700) if needed.
    static func generate(at path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let secret = Data(SecureRandom.bytes(count: 32)).base64EncodedString()
        let text = "{\"keys\":[{\"id\":1,\"secret\":\"\(secret)\"}]}\n"
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw Problem(description: "\(path): cannot create the challenge key file")
        }
    }
}
