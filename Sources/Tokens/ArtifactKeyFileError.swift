/// Why an artifact key file could not be read.
public struct ArtifactKeyFileError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: String, Sendable { case unreadable, malformed, invalidKey, duplicateVersion }
    private let code: Code

    /// The file could not be read.
    public static let unreadable = ArtifactKeyFileError(code: .unreadable)
    /// Not `{"keys":[{"version":N,"key":"<base64>"}, ...]}` with at least one key.
    public static let malformed = ArtifactKeyFileError(code: .malformed)
    /// A version outside 0-255 or a key that is not base64 of 32 bytes.
    public static let invalidKey = ArtifactKeyFileError(code: .invalidKey)
    /// Two keys share a version.
    public static let duplicateVersion = ArtifactKeyFileError(code: .duplicateVersion)

    public var description: String {
        switch code {
        case .unreadable: "the artifact key file cannot be read"
        case .malformed: "the artifact key file must be {\"keys\":[{\"version\":N,\"key\":\"<base64 of 32 bytes>\"}]}"
        case .invalidKey: "an artifact key needs a version 0-255 and a key of base64 of exactly 32 bytes"
        case .duplicateVersion: "two artifact keys share a version"
        }
    }
}
