import HTTP
package import TLS

/// The file of TLS session ticket keys: `{"keys":[{"id":1,"secret":"<base64 of 32+ bytes>"}, ...]}`. The last key
/// protects new tickets; the others still open tickets they protected (OpenSSL then issues a fresh ticket under the
/// last key), so a key rotates by appending a new one and removing the old one once its tickets have expired (two
/// hours). Every node of a cluster must hold the same file, so a client resumes on any node.
package enum SessionTicketKeyFile {
    /// Reads the keys at `path`.
    package static func load(path: String) throws -> [TLSSessionTicketKey] {
        try SecretKeyListFile.load(
            path: path, kind: "session ticket key", ids: 0...Int(UInt32.max),
            requirement: "a base64 secret of at least \(TLSSessionTicketKey.minimumSecretCount) bytes"
        ) { TLSSessionTicketKey(id: UInt32($0.id), secret: $0.secret) }
    }
}
