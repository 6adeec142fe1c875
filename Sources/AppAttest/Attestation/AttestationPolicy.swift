/// What an attestation must satisfy beyond Apple's steps: the signing categories (iOS 27's
/// `apple_validation_category_01`) accepted in each environment.
public struct AttestationPolicy: Sendable {
    /// Allowed validation categories per environment of the attested key. nil accepts any; an environment missing
    /// from the dictionary accepts any. An attestation without the extension (before iOS 27) is always accepted.
    public var allowedValidationCategories: [AppAttestEnvironment: Set<UInt32>]?

    public init(allowedValidationCategories: [AppAttestEnvironment: Set<UInt32>]? = nil) {
        self.allowedValidationCategories = allowedValidationCategories
    }

    /// Accepts every category: Apple's own sample is category 1 (platform) in production, so any narrower default
    /// would refuse real devices a deployment has not thought about. Services narrow it in their configuration.
    public static let `default` = AttestationPolicy()

    /// True when `category` may be attested in `environment`.
    public func allows(_ category: UInt32?, in environment: AppAttestEnvironment) -> Bool {
        guard let category, let allowed = allowedValidationCategories?[environment] else { return true }
        return allowed.contains(category)
    }
}
