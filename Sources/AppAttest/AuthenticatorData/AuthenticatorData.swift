/// Authenticator data as App Attest writes it (WebAuthn layout, with Apple's quirks).
///
/// ```
/// rpIdHash(32) | flags(1) | signCount(4, big-endian)                                  -- every object
/// aaguid(16) | credentialIdLength(2) | credentialId | COSE key (CBOR)               -- attestations only
/// extensions (CBOR map)                                                              -- iOS 27+, optional
/// ```
/// The flags are not trusted to say what follows: Apple sets AT on assertions that carry no credential data, and
/// appends the iOS 27 extensions map without setting ED. So an attestation is always parsed with credential data, an
/// assertion never, and whatever follows is accepted only if it is exactly one CBOR map.
public struct AuthenticatorData: Sendable {
    /// The bytes as received (the nonce and the assertion signature cover all of them).
    public let rawValue: [UInt8]
    /// SHA-256 of the App ID.
    public let rpIDHash: [UInt8]
    /// The flags byte, reported but never relied on.
    public let flags: UInt8
    /// The signature counter: 0 in an attestation, increasing in assertions.
    public let signCount: UInt32
    /// aaguid, credential ID and key: present in attestations.
    public let attestedCredential: AttestedCredentialData?
    /// The iOS 27 extensions (empty when absent).
    public let extensions: AuthenticatorExtensions

    static let fixedCount = 37

    /// Parses an attestation's authenticator data: credential data required, then an optional extensions map.
    public init(attestation bytes: [UInt8]) throws(AppAttestError) {
        try self.init(bytes, withCredential: true)
    }

    /// Parses an assertion's authenticator data: 37 bytes, then an optional extensions map, whatever the flags say.
    public init(assertion bytes: [UInt8]) throws(AppAttestError) {
        try self.init(bytes, withCredential: false)
    }

    private init(_ bytes: [UInt8], withCredential: Bool) throws(AppAttestError) {
        guard bytes.count >= Self.fixedCount else {
            throw AppAttestError(.malformed("authData"), "\(bytes.count) bytes, fewer than the 37 every object has")
        }
        rawValue = bytes
        rpIDHash = Array(bytes[0..<32])
        flags = bytes[32]
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var position = Self.fixedCount
        if withCredential {
            let credential = try AttestedCredentialData(bytes, from: position)
            attestedCredential = credential
            position = credential.end
        } else {
            attestedCredential = nil
        }
        extensions = try AuthenticatorExtensions(bytes[position...])
    }
}

extension AuthenticatorData {
    /// The flag bits WebAuthn defines, for display.
    public var flagNames: [String] {
        [(0x01, "UP"), (0x04, "UV"), (0x40, "AT"), (0x80, "ED")].compactMap { flags & $0.0 != 0 ? $0.1 : nil }
    }
}
