/// Why a set of token signing keys could not be assembled.
public struct SigningKeySetError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: String, Sendable {
        case empty, duplicateKey, unreadableFile, invalidKey, noKeyForAlgorithm, publishedTooBriefly, sameSignFrom, nothingSigns
    }
    private let code: Code
    /// The file and the key error, when there is one; not part of equality.
    public let detail: String

    private init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    /// No keys: nothing could sign.
    public static let empty = SigningKeySetError(.empty)
    /// The same key appears twice (same thumbprint, hence the same `kid`).
    public static let duplicateKey = SigningKeySetError(.duplicateKey)
    /// A key file could not be read.
    public static let unreadableFile = SigningKeySetError(.unreadableFile)
    /// A key file holds no usable key (see `PrivateKeyError`).
    public static let invalidKey = SigningKeySetError(.invalidKey)
    /// No key of the configured token algorithm (`tokens.algorithm`) is listed, so nothing may sign.
    public static let noKeyForAlgorithm = SigningKeySetError(.noKeyForAlgorithm)
    /// A timed key would sign before verifiers that cache the JWKS could have fetched it.
    public static let publishedTooBriefly = SigningKeySetError(.publishedTooBriefly)
    /// Two timed keys of the tokens' algorithm start signing at the same time: which one signs would be a guess.
    public static let sameSignFrom = SigningKeySetError(.sameSignFrom)
    /// No key of the tokens' algorithm signs yet at the time the schedule is checked.
    public static let nothingSigns = SigningKeySetError(.nothingSigns)

    func with(detail: String) -> SigningKeySetError { SigningKeySetError(code, detail) }

    public static func == (lhs: SigningKeySetError, rhs: SigningKeySetError) -> Bool { lhs.code == rhs.code }

    public var description: String { detail.isEmpty ? code.rawValue : "\(code.rawValue): \(detail)" }
}
