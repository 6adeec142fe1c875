/// Why a token could not be signed.
public struct TokenSigningError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: String, Sendable { case noSigningKey, signingFailed }
    private let code: Code
    /// The time or OpenSSL's words; not part of equality.
    public let detail: String

    private init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    /// No key signs at the time asked: before the schedule's first `signFrom` (only if the clock went back).
    public static let noSigningKey = TokenSigningError(.noSigningKey)
    /// The key refused to sign (see `PrivateKeyError`).
    public static let signingFailed = TokenSigningError(.signingFailed)

    func with(detail: String) -> TokenSigningError { TokenSigningError(code, detail) }

    public static func == (lhs: TokenSigningError, rhs: TokenSigningError) -> Bool { lhs.code == rhs.code }

    public var description: String { detail.isEmpty ? code.rawValue : "\(code.rawValue): \(detail)" }
}
