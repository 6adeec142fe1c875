/// Why a public key could not be loaded.
public struct PublicKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: String, Sendable { case unreadable, unsupported, tooWeak }
    private let code: Code
    /// What OpenSSL said, when it said something; not part of equality.
    public let detail: String

    private init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    /// The text is neither a PEM `PUBLIC KEY` nor a PEM `CERTIFICATE` OpenSSL can read.
    public static let unreadable = PublicKeyError(.unreadable)
    /// The key is neither RSA nor EC on P-256.
    public static let unsupported = PublicKeyError(.unsupported)
    /// An RSA key shorter than 2048 bits.
    public static let tooWeak = PublicKeyError(.tooWeak)

    func with(detail: String) -> PublicKeyError { PublicKeyError(code, detail) }

    public static func == (lhs: PublicKeyError, rhs: PublicKeyError) -> Bool { lhs.code == rhs.code }

    public var description: String { detail.isEmpty ? code.rawValue : "\(code.rawValue): \(detail)" }
}
