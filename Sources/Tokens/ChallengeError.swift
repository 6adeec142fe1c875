/// Why a challenge was refused. Each reason is distinct so that the failure metric can say which.
public struct ChallengeError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: String, Sendable, CaseIterable { case malformed, unknownKey, forged, expired }
    private let code: Code

    /// The bytes are not a challenge of this format (wrong length or version).
    public static let malformed = ChallengeError(code: .malformed)
    /// The challenge names a key this node does not hold (rotated out, or never ours).
    public static let unknownKey = ChallengeError(code: .unknownKey)
    /// The MAC does not match: the challenge was altered, made up, or issued for another app.
    public static let forged = ChallengeError(code: .forged)
    /// The challenge is past its expiry time.
    public static let expired = ChallengeError(code: .expired)

    /// The reason's name, as it appears in logs and metrics: `challengeExpired`, `challengeForged`, ...
    public var reason: String {
        switch code {
        case .malformed: "challengeMalformed"
        case .unknownKey: "challengeUnknownKey"
        case .forged: "challengeForged"
        case .expired: "challengeExpired"
        }
    }

    /// Every reason, so that the failure metric can export each at zero before it happens.
    public static let all: [ChallengeError] = Code.allCases.map { ChallengeError(code: $0) }

    public var description: String { reason }
}
