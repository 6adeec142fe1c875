/// Why a private key could not be loaded or used.
public struct PrivateKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: String, Sendable { case unreadable, unsupported, tooWeak, signingFailed, generationFailed }
    private let code: Code
    /// What OpenSSL said, when it said something; not part of equality.
    public let detail: String

    private init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    /// The text is not a PEM private key OpenSSL can read (PKCS#8, or traditional RSA/EC).
    public static let unreadable = PrivateKeyError(.unreadable)
    /// The key is neither RSA nor EC on P-256.
    public static let unsupported = PrivateKeyError(.unsupported)
    /// An RSA key shorter than 2048 bits.
    public static let tooWeak = PrivateKeyError(.tooWeak)
    /// OpenSSL refused to sign (out of memory, or a key it cannot use).
    public static let signingFailed = PrivateKeyError(.signingFailed)
    /// OpenSSL could not generate a new key.
    public static let generationFailed = PrivateKeyError(.generationFailed)

    func with(detail: String) -> PrivateKeyError { PrivateKeyError(code, detail) }

    public static func == (lhs: PrivateKeyError, rhs: PrivateKeyError) -> Bool { lhs.code == rhs.code }

    public var description: String { detail.isEmpty ? code.rawValue : "\(code.rawValue): \(detail)" }
}
