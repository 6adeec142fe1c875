/// Why `Keygen.write` wrote nothing (or, for `writeFailed`, not everything).
public struct KeygenError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: String, Sendable {
        case fileExists, directoryNotPrivate, cannotCreateDirectory, writeFailed, keyGenerationFailed
    }
    private let code: Code
    /// The path concerned and the system's reason; not part of equality.
    public let detail: String

    private init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    /// A key file already exists and overwriting was not asked for.
    public static let fileExists = KeygenError(.fileExists)
    /// The output directory exists and others than its owner may enter or read it.
    public static let directoryNotPrivate = KeygenError(.directoryNotPrivate)
    /// The output directory could not be created.
    public static let cannotCreateDirectory = KeygenError(.cannotCreateDirectory)
    /// A key file could not be written.
    public static let writeFailed = KeygenError(.writeFailed)
    /// OpenSSL could not generate the signing key.
    public static let keyGenerationFailed = KeygenError(.keyGenerationFailed)

    func with(detail: String) -> KeygenError { KeygenError(code, detail) }

    public static func == (lhs: KeygenError, rhs: KeygenError) -> Bool { lhs.code == rhs.code }

    public var description: String {
        switch code {
        case .fileExists: "\(detail) already exists (use --force to replace it)"
        case .directoryNotPrivate: "\(detail) is accessible to other users (chmod 700 it, or choose another directory)"
        case .cannotCreateDirectory: "cannot create \(detail)"
        case .writeFailed: "cannot write \(detail)"
        case .keyGenerationFailed: "cannot generate the signing key: \(detail)"
        }
    }
}
