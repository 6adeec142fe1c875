import Basics
import Foundation
import HTTP
package import TLS

/// The file of TLS session ticket keys: `{"keys":[{"id":1,"secret":"<base64 of 32+ bytes>"}, ...]}`. The last key
/// protects new tickets; the others still open tickets they protected (OpenSSL then issues a fresh ticket under the
/// last key), so a key rotates by appending a new one and removing the old one once its tickets have expired (two
/// hours). Every node of a cluster must hold the same file, so a client resumes on any node.
package enum SessionTicketKeyFile {
    package struct Problem: Error, CustomStringConvertible {
        package let description: String
    }

    /// Reads the keys at `path`.
    package static func load(path: String) throws -> [TLSSessionTicketKey] {
        guard FileManager.default.fileExists(atPath: path) else {
            throw Problem(description: "\(path): session ticket key file does not exist (run `attestd keygen` or set keys.generateMissing)")
        }
        guard let data = FileManager.default.contents(atPath: path),
              let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let entries = root["keys"] as? [[String: Any]], !entries.isEmpty
        else { throw Problem(description: "\(path): must be {\"keys\":[{\"id\":N,\"secret\":\"base64\"}]}") }
        var seen = Set<UInt32>()
        return try entries.enumerated().map { index, entry in
            guard let id = entry["id"] as? Int, (0...Int(UInt32.max)).contains(id),
                  let text = entry["secret"] as? String, let secret = Base64.standard.decode(text),
                  let key = TLSSessionTicketKey(id: UInt32(id), secret: secret)
            else {
                throw Problem(description: "\(path): keys[\(index)] needs an id 0-\(UInt32.max) and a base64 secret of at least \(TLSSessionTicketKey.minimumSecretCount) bytes")
            }
            guard seen.insert(key.id).inserted else {
                throw Problem(description: "\(path): keys[\(index)]: id \(id) appears twice (the id names the key in every ticket)")
            }
            return key
        }
    }
}
