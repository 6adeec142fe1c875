/// Why an App Check token was refused. Each reason is distinct so that logs and the failure metric can say which;
/// clients only ever see "App attestation failed.".
public struct AppCheckTokenError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: String, Sendable, CaseIterable {
        case malformed, unsupportedAlgorithm, wrongType, unknownKey, badSignature, expired, issuedInFuture
        case wrongIssuer, wrongAudience
    }
    private let code: Code

    /// Not three base64url segments of JSON, or a required claim is missing or of the wrong type.
    public static let malformed = AppCheckTokenError(code: .malformed)
    /// `alg` is not the algorithm of the key named by `kid` (refuses `none`, `HS256`, and algorithm confusion).
    public static let unsupportedAlgorithm = AppCheckTokenError(code: .unsupportedAlgorithm)
    /// `typ` is not `JWT`.
    public static let wrongType = AppCheckTokenError(code: .wrongType)
    /// `kid` is missing or names no key in our set.
    public static let unknownKey = AppCheckTokenError(code: .unknownKey)
    /// The signature does not verify under the key named by `kid`.
    public static let badSignature = AppCheckTokenError(code: .badSignature)
    /// `exp` has passed.
    public static let expired = AppCheckTokenError(code: .expired)
    /// `iat` lies in the future by more than the allowed clock skew.
    public static let issuedInFuture = AppCheckTokenError(code: .issuedInFuture)
    /// `iss` does not start with our issuer prefix followed by a project.
    public static let wrongIssuer = AppCheckTokenError(code: .wrongIssuer)
    /// `aud` is not an array containing `projects/<project>`.
    public static let wrongAudience = AppCheckTokenError(code: .wrongAudience)

    /// The reason's name for logs and metrics: `tokenExpired`, `tokenBadSignature`, ...
    public var reason: String {
        let name = code.rawValue
        return "token" + name.prefix(1).uppercased() + name.dropFirst()
    }

    /// Every reason, so that the failure metric can export each at zero before it happens.
    public static let all: [AppCheckTokenError] = Code.allCases.map { AppCheckTokenError(code: $0) }

    public var description: String { reason }
}
