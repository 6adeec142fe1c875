public import Crypto
import FoundationEssentials

extension SigningKeySet {
    /// The keys in the PEM files at `paths`, oldest first (the last one of `algorithm` signs).
    public init(pemFiles paths: [String], signingWith algorithm: SigningAlgorithm) throws(SigningKeySetError) {
        var keys = [PrivateKey]()
        for path in paths { keys.append(try Self.key(pemFile: path)) }
        do {
            try self.init(keys: keys, signingWith: algorithm)
        } catch {
            throw error.with(detail: "\(paths.joined(separator: ", ")): \(error.detail)")
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
