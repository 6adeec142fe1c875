/// Why an artifact was refused. Each reason is distinct for logs and the failure metric.
public struct ArtifactError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: String, Sendable, CaseIterable { case malformed, unknownKeyVersion, tampered, wrongApp }
    private let code: Code

    /// Not an artifact of this format: wrong length or format byte, or contents that do not parse.
    public static let malformed = ArtifactError(code: .malformed)
    /// Sealed under a key version this node does not hold (rotated out, or never ours).
    public static let unknownKeyVersion = ArtifactError(code: .unknownKeyVersion)
    /// The authentication tag does not match: some byte was changed, or the artifact was made up.
    public static let tampered = ArtifactError(code: .tampered)
    /// Genuine, but issued for another app than the one asking.
    public static let wrongApp = ArtifactError(code: .wrongApp)

    /// The reason's name for logs and metrics: `artifactTampered`, ...
    public var reason: String {
        let name = code.rawValue
        return "artifact" + name.prefix(1).uppercased() + name.dropFirst()
    }

    /// Every reason, so that the failure metric can export each at zero before it happens.
    public static let all: [ArtifactError] = Code.allCases.map { ArtifactError(code: $0) }

    public var description: String { reason }
}
