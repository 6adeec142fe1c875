/// Why a custom token (the input of ExchangeCustomToken) was refused. Each reason is distinct for logs and the
/// failure metric; clients only ever see "App attestation failed.".
public struct CustomTokenError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: String, Sendable, CaseIterable {
        case malformed, unsupportedAlgorithm, unknownServiceAccount, badSignature, wrongIssuer, wrongAudience
        case wrongApp, expired, issuedInFuture, lifetimeTooLong, badTTL
    }
    private let code: Code

    /// Not three base64url segments of JSON, or a required claim is missing or of the wrong type.
    public static let malformed = CustomTokenError(code: .malformed)
    /// `alg` is not RS256 (refuses `none`, `HS256`, ES256).
    public static let unsupportedAlgorithm = CustomTokenError(code: .unsupportedAlgorithm)
    /// `iss` is not the email of any service account configured for the project.
    public static let unknownServiceAccount = CustomTokenError(code: .unknownServiceAccount)
    /// No configured key of that service account verifies the signature.
    public static let badSignature = CustomTokenError(code: .badSignature)
    /// `iss` and `sub` differ.
    public static let wrongIssuer = CustomTokenError(code: .wrongIssuer)
    /// `aud` is not the TokenExchangeService audience.
    public static let wrongAudience = CustomTokenError(code: .wrongAudience)
    /// `app_id` is not the app named in the request.
    public static let wrongApp = CustomTokenError(code: .wrongApp)
    /// `exp` has passed.
    public static let expired = CustomTokenError(code: .expired)
    /// `iat` lies in the future beyond the allowed clock skew.
    public static let issuedInFuture = CustomTokenError(code: .issuedInFuture)
    /// `exp - iat` is more than 5 minutes (or negative).
    public static let lifetimeTooLong = CustomTokenError(code: .lifetimeTooLong)
    /// `ttl` is not a Duration string between 30 minutes and 7 days.
    public static let badTTL = CustomTokenError(code: .badTTL)

    /// The reason's name for logs and metrics: `customTokenExpired`, `customTokenWrongAudience`, ...
    public var reason: String {
        let name = code.rawValue
        return "customToken" + name.prefix(1).uppercased() + name.dropFirst()
    }

    /// Every reason, so that the failure metric can export each at zero before it happens.
    public static let all: [CustomTokenError] = Code.allCases.map { CustomTokenError(code: $0) }

    public var description: String { reason }
}
