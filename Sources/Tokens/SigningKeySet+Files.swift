public import Crypto
import FoundationEssentials

extension SigningKeySet {
    /// The untimed keys in the PEM files at `paths`, oldest first (the last one of `algorithm` signs).
    public init(pemFiles paths: [String], signingWith algorithm: SigningAlgorithm) throws(SigningKeySetError) {
        try self.init(pemFiles: paths.map { ($0, nil) }, signingWith: algorithm, rules: .conservative, checkedAt: 0)
    }

    /// The keys in the PEM files of `files`, each with its timing (nil: untimed), in the order configured; see
    /// `init(keys:signingWith:rules:checkedAt:)` for what is refused. Every error names the file.
    public init(
        pemFiles files: [(path: String, timing: SigningKeyTiming?)], signingWith algorithm: SigningAlgorithm,
        rules: SigningKeyRotationRules, checkedAt now: Int64
    ) throws(SigningKeySetError) {
        var keys = [Key]()
        for file in files { keys.append(Key(try Self.key(pemFile: file.path), timing: file.timing, name: file.path)) }
        do {
            try self.init(keys: keys, signingWith: algorithm, rules: rules, checkedAt: now)
        } catch where error == .noKeyForAlgorithm {
            throw error.with(detail: "\(files.map(\.path).joined(separator: ", ")): \(error.detail)")
        }
    }

    /// The one key in the PEM file at `path`, whatever its algorithm.
    public static func key(pemFile path: String) throws(SigningKeySetError) -> PrivateKey {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path)) else {
            throw SigningKeySetError.unreadableFile.with(detail: path)
        }
        do {
            return try PrivateKey(pem: String(decoding: data, as: UTF8.self))
        } catch {
            throw SigningKeySetError.invalidKey.with(detail: "\(path): \(error)")
        }
    }
}
