/// Knobs for one simulated attestation. The defaults give an object Apple's steps accept; each mutation below is
/// applied *before* the nonce is computed and the certificate is signed, so it breaks exactly the one rule it
/// names and nothing else.
public struct AttestationOptions: Sendable {
    /// What the credential certificate's nonce extension (1.2.840.113635.100.8.2) holds.
    public enum Nonce: Sendable {
        /// `SHA256(authData || clientDataHash)`, as Apple computes it.
        case computed
        /// This value inside Apple's structure `30 24 A1 22 04 20 <value>` (breaks step 4: nonce).
        case value([UInt8])
        /// These bytes as the whole extension value (for malformed-extension tests).
        case rawExtensionValue([UInt8])
        /// No nonce extension at all.
        case omitted
    }

    /// What `attStmt.receipt` holds.
    public enum Receipt: Sendable {
        /// A receipt signed by the device's receipt CA; `edit` changes its fields before signing.
        case signed(SimulatedReceiptCA.Encoding = .der, edit: (@Sendable (inout SimulatedReceipt) -> Void)? = nil)
        /// No `receipt` key in `attStmt`.
        case omitted
        /// A zero-length byte string.
        case empty
        /// These bytes as the receipt.
        case bytes([UInt8])
    }

    /// When the device attests, in seconds since the Unix epoch (default: now). The credential certificate is
    /// valid from a day before to two days after, 72 hours in all as Apple's are, and the receipt is created at
    /// this time.
    public var issuedAt: Int64?
    /// Overrides the credential certificate's notBefore (seconds since the Unix epoch).
    public var certificateNotBefore: Int64?
    /// Overrides the credential certificate's notAfter (seconds since the Unix epoch).
    public var certificateNotAfter: Int64?
    /// The receipt to embed.
    public var receipt: Receipt = .signed()
    /// The OS version in extension 1.2.840.113635.100.8.7.
    public var osVersion: String = "27.0"

    /// `fmt` (breaks: unsupported format).
    public var format: String = "apple-appattest"
    /// authData rpIdHash; nil means SHA-256 of the device's App ID (breaks step 6: App ID).
    public var rpIDHash: [UInt8]?
    /// authData flags; Apple writes 0x40 (AT) and never sets ED, even with extensions.
    public var flags: UInt8 = 0x40
    /// authData signCount (breaks step 7 unless 0).
    public var counter: UInt32 = 0
    /// authData aaguid; nil means the device environment's (breaks step 8: environment).
    public var aaguid: [UInt8]?
    /// authData credentialId; nil means the keyID (breaks step 9).
    public var credentialID: [UInt8]?
    /// The COSE key bytes in authData; nil means the attested key's (breaks: COSE key differs from the certificate's).
    public var credentialPublicKey: [UInt8]?
    /// The credential certificate's nonce extension (breaks step 4).
    public var certificateNonce: Nonce = .computed
    /// The key the credential certificate certifies; nil means the attested key (breaks step 5: keyId).
    public var certifiedKey: SimulatedKey?
    /// The App ID in extension 1.2.840.113635.100.8.5 (informational; a verifier must not trust it).
    public var certificateAppID: String?
    /// A different CA hierarchy to sign the credential certificate; `x5c` then carries its intermediate
    /// (breaks step 1 when the verifier does not trust that CA's root).
    public var issuingCA: SimulatedAppleCA?
    /// Rewrites `x5c` (`[leaf, intermediate]` DER) after signing, for chain-shape tests.
    public var x5c: (@Sendable ([[UInt8]]) -> [[UInt8]])?
    /// Bytes appended after the CBOR map (breaks: malformed, trailing data).
    public var trailingBytes: [UInt8] = []

    public init() {}

    /// Options with `edit` applied, for one-line mutations: `.init { $0.counter = 1 }`.
    public init(_ edit: (inout AttestationOptions) -> Void) {
        edit(&self)
    }
}
