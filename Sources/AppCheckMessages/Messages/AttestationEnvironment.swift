/// `attestd.v1.AttestationEnvironment`: the App Attest environment a key was attested in. Open, as proto3 enums
/// are: unknown numbers survive.
public struct AttestationEnvironment: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    public static let unspecified = AttestationEnvironment(rawValue: 0)
    /// aaguid `appattestdevelop`.
    public static let development = AttestationEnvironment(rawValue: 1)
    /// aaguid `appattest` followed by seven zero bytes.
    public static let production = AttestationEnvironment(rawValue: 2)

    public var description: String {
        switch rawValue {
        case 0: "ATTESTATION_ENVIRONMENT_UNSPECIFIED"
        case 1: "ATTESTATION_ENVIRONMENT_DEVELOPMENT"
        case 2: "ATTESTATION_ENVIRONMENT_PRODUCTION"
        default: String(rawValue)
        }
    }
}
