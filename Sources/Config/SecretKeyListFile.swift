import Basics
import Foundation

/// The shape the challenge and session-ticket key files share: `{"keys":[{"id":N,"secret":"<base64>"}, ...]}`,
/// oldest first. The id names the key inside every challenge or ticket it protects, so ids must be unique.
enum SecretKeyListFile {
    struct Entry {
        let index: Int
        let id: Int
        let secret: [UInt8]
    }

    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    /// Reads the entries at `path` whose ids lie in `ids`; `kind` names the file in errors ("challenge key").
    /// `makeKey` turns an entry into its key, nil when the secret is too short, which `requirement` then explains.
    static func load<Key>(
        path: String, kind: String, ids: ClosedRange<Int>, requirement: String,
        makeKey: (Entry) -> Key?
    ) throws(Problem) -> [Key] {
        guard FileManager.default.fileExists(atPath: path) else {
            throw Problem(description: "\(path): \(kind) file does not exist (run `attestd keygen` or set keys.generateMissing)")
        }
        guard let data = FileManager.default.contents(atPath: path),
              let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let entries = root["keys"] as? [[String: Any]], !entries.isEmpty
        else { throw Problem(description: "\(path): must be {\"keys\":[{\"id\":N,\"secret\":\"base64\"}]}") }
        var seen = Set<Int>()
        var keys: [Key] = []
        for (index, fields) in entries.enumerated() {
            guard let id = fields["id"] as? Int, ids.contains(id),
                  let text = fields["secret"] as? String, let secret = Base64.standard.decode(text),
                  let key = makeKey(Entry(index: index, id: id, secret: secret))
            else {
                throw Problem(description: "\(path): keys[\(index)] needs an id \(ids.lowerBound)-\(ids.upperBound) and \(requirement)")
            }
            guard seen.insert(id).inserted else {
                throw Problem(description: "\(path): keys[\(index)]: id \(id) appears twice (the id names the key in everything it protects)")
            }
            keys.append(key)
        }
        return keys
    }
}
