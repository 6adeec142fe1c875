/// The JWS algorithms attestd signs and verifies with (RFC 7518 §3.3 and §3.4).
public enum SigningAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// RSASSA-PKCS1-v1_5 with SHA-256, over an RSA key of at least 2048 bits: Firebase's algorithm, and the only
    /// one the Firebase Admin SDKs accept.
    case rs256 = "RS256"
    /// ECDSA on P-256 with SHA-256, the signature the 64-byte concatenation r‖s (not DER). About ten times
    /// cheaper to sign than RS256, for verifiers that are not the Admin SDKs.
    case es256 = "ES256"

    /// The JWS `alg` value: `RS256` or `ES256`.
    public var jwsName: String { rawValue }
}
