import Basics
public import Crypto
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// New key material for a node or a cluster: the token signing key, the challenge MAC key, the artifact sealing key
/// and the TLS session ticket key, each in its own file readable by its owner only (0600) in a directory only its owner may enter
/// (0700).
public enum Keygen {
    /// The token signing key, unencrypted PKCS#8 PEM.
    public static let signingKeyFile = "token-signing.pem"
    /// `{"keys":[{"id":1,"secret":"<base64 of 32 bytes>"}]}`.
    public static let challengeKeyFile = "challenge.json"
    /// `{"keys":[{"version":1,"key":"<base64 of 32 bytes>"}]}`.
    public static let artifactKeyFile = "artifact.json"
    /// `{"keys":[{"id":1,"secret":"<base64 of 32 bytes>"}]}`.
    public static let sessionTicketKeyFile = "session-tickets.json"

    /// Writes the four key files into `directory`, creating it (0700) if needed. Refuses to replace an existing
    /// file unless `overwrite`, checking all four before writing any; each file is written to a temporary name
    /// and renamed, so a reader never sees half a key.
    /// - Returns: the paths written.
    @discardableResult
    public static func write(
        into directory: String, signing algorithm: SigningAlgorithm, overwrite: Bool
    ) throws(KeygenError) -> [String] {
        try prepare(directory)
        let names = [signingKeyFile, challengeKeyFile, artifactKeyFile, sessionTicketKeyFile]
        let paths = names.map { directory.hasSuffix("/") ? directory + $0 : directory + "/" + $0 }
        if !overwrite, let existing = paths.first(where: { access($0, F_OK) == 0 }) {
            throw KeygenError.fileExists.with(detail: existing)
        }
        let signingKey: PrivateKey
        do {
            signingKey = try PrivateKey.generate(algorithm)
        } catch {
            throw KeygenError.keyGenerationFailed.with(detail: error.description)
        }
        let contents = [signingKey.pem(), challengeKeyJSON(), artifactKeyJSON(), sessionTicketKeyJSON()]
        for (path, text) in zip(paths, contents) { try writePrivateFile(path, text) }
        return paths
    }

    /// Writes one new token signing key, for a staged rotation, to `path` (0600), refusing to replace an existing
    /// file unless `overwrite`; its directory must exist.
    public static func writeSigningKey(to path: String, signing algorithm: SigningAlgorithm, overwrite: Bool) throws(KeygenError) {
        if !overwrite && access(path, F_OK) == 0 { throw KeygenError.fileExists.with(detail: path) }
        let signingKey: PrivateKey
        do {
            signingKey = try PrivateKey.generate(algorithm)
        } catch {
            throw KeygenError.keyGenerationFailed.with(detail: error.description)
        }
        try writePrivateFile(path, signingKey.pem())
    }

    /// The `keys.tokenSigning` entry that publishes the key at `path` from `publishFrom` (Unix seconds) and has it
    /// sign as soon as `rules` allow.
    public static func signingKeyEntry(path: String, publishFrom: Int64, rules: SigningKeyRotationRules = .conservative) -> String {
        var quoted = [UInt8]()
        JSONBytes.appendString(path, to: &quoted)
        let file = String(decoding: quoted, as: UTF8.self)
        return "{\"file\": \(file), \"publishFrom\": \"\(RFC3339.format(unixSeconds: publishFrom))\", "
            + "\"signFrom\": \"\(RFC3339.format(unixSeconds: publishFrom + rules.minimumPublicationSeconds))\"}"
    }

    /// A challenge key file's JSON with one fresh key, id 1.
    public static func challengeKeyJSON() -> String {
        "{\"keys\":[{\"id\":1,\"secret\":\"\(Base64.standard.encode(SecureRandom.bytes(count: 32)))\"}]}\n"
    }

    /// A TLS session ticket key file's JSON with one fresh key, id 1 (the same layout as the challenge key file's).
    public static func sessionTicketKeyJSON() -> String {
        "{\"keys\":[{\"id\":1,\"secret\":\"\(Base64.standard.encode(SecureRandom.bytes(count: 32)))\"}]}\n"
    }

    /// An artifact key file's JSON with one fresh key, version 1.
    public static func artifactKeyJSON() -> String {
        let key = Base64.standard.encode(SecureRandom.bytes(count: AESGCM.keyCount))
        return "{\"keys\":[{\"version\":1,\"key\":\"\(key)\"}]}\n"
    }

    private static func prepare(_ directory: String) throws(KeygenError) {
        var status = stat()
        if stat(directory, &status) != 0 {
            guard mkdir(directory, 0o700) == 0 else {
                throw KeygenError.cannotCreateDirectory.with(detail: "\(directory): \(String(cString: strerror(errno)))")
            }
            return
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw KeygenError.cannotCreateDirectory.with(detail: "\(directory): not a directory")
        }
        // Group or world access to a key directory would let others read a key file the moment its mode slips.
        guard status.st_mode & 0o077 == 0 else { throw KeygenError.directoryNotPrivate.with(detail: directory) }
    }

    private static func writePrivateFile(_ path: String, _ text: String) throws(KeygenError) {
        do {
            try AtomicFile.write(text, to: path, mode: 0o600)
        } catch {
            throw KeygenError.writeFailed.with(detail: error.description)
        }
    }
}
