import Basics
import FoundationEssentials

extension ArtifactKeyring {
    private struct KeyFile: Decodable {
        struct Entry: Decodable {
            let version: Int
            let key: String
        }
        let keys: [Entry]
    }

    /// The keyring in an artifact key file's JSON, `{"keys":[{"version":1,"key":"<base64 of 32 bytes>"}]}` (the
    /// format `attestd keygen` writes); the last key seals.
    public init(keyFileJSON json: [UInt8]) throws(ArtifactKeyFileError) {
        guard let file = try? JSONDecoder().decode(KeyFile.self, from: Data(json)), !file.keys.isEmpty else {
            throw .malformed
        }
        var keys = [ArtifactKey]()
        for entry in file.keys {
            guard (0...255).contains(entry.version), let secret = Base64.standard.decode(entry.key),
                  let key = ArtifactKey(version: UInt8(entry.version), secret: secret)
            else { throw .invalidKey }
            keys.append(key)
        }
        guard let keyring = ArtifactKeyring(keys: keys) else { throw .duplicateVersion }
        self = keyring
    }

    /// The keyring in the artifact key file at `path`.
    public init(keyFile path: String) throws(ArtifactKeyFileError) {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path)) else { throw .unreadable }
        try self.init(keyFileJSON: [UInt8](data))
    }
}
