import Crypto

/// The standard and Apple extensions the simulated certificates carry, encoded as Apple's are.
extension IssuedCertificate.Extension {
    static func basicConstraints(ca: Bool, pathLength: UInt64? = nil) -> Self {
        var content: [UInt8] = []
        if ca { content += DER.boolean(true) }
        if let pathLength { content += DER.integer(pathLength) }
        return Self(oid: "2.5.29.19", critical: true, value: DER.tlv([0x30], content))
    }

    /// keyCertSign and cRLSign, as on Apple's CA certificates.
    static var caKeyUsage: Self { Self(oid: "2.5.29.15", critical: true, value: [0x03, 0x02, 0x01, 0x06]) }

    /// digitalSignature, nonRepudiation, keyEncipherment, dataEncipherment: the odd set Apple's leaves carry.
    static var credentialKeyUsage: Self { Self(oid: "2.5.29.15", critical: true, value: [0x03, 0x02, 0x04, 0xF0]) }

    /// digitalSignature only, as on Apple's receipt signing certificate.
    static var signingKeyUsage: Self { Self(oid: "2.5.29.15", critical: true, value: [0x03, 0x02, 0x07, 0x80]) }

    /// Apple's private extended key usage 1.2.840.113635.100.4.24, present on 2026 leaves.
    static var appAttestExtendedKeyUsage: Self {
        Self(oid: "2.5.29.37", critical: false, value: DER.sequence(DER.tlv([0x06], [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x63, 0x64, 0x04, 0x18])))
    }

    static func subjectKeyIdentifier(_ identifier: [UInt8]) -> Self {
        Self(oid: "2.5.29.14", critical: false, value: DER.octetString(identifier))
    }

    static func authorityKeyIdentifier(_ identifier: [UInt8]) -> Self {
        Self(oid: "2.5.29.35", critical: false, value: DER.sequence(DER.tlv([0x80], identifier)))
    }

    /// The nonce extension 1.2.840.113635.100.8.2: exactly `30 24 A1 22 04 20 <nonce>` for a 32-byte nonce.
    static func nonce(_ nonce: [UInt8]) -> Self {
        rawNonce(DER.sequence(DER.explicitContext(1, DER.octetString(nonce))))
    }

    /// The nonce extension with whatever bytes a test wants as its value.
    static func rawNonce(_ value: [UInt8]) -> Self {
        Self(oid: "1.2.840.113635.100.8.2", critical: false, value: value)
    }

    /// 1.2.840.113635.100.8.5: a SEQUENCE whose `[1204]` holds the App ID, as Apple writes it.
    static func appID(_ appID: String) -> Self {
        Self(oid: "1.2.840.113635.100.8.5", critical: false,
             value: DER.sequence(DER.explicitContext(1204, DER.octetString(Array(appID.utf8)))))
    }

    /// 1.2.840.113635.100.8.7: a SEQUENCE whose `[1400]` holds the OS version.
    static func operatingSystem(version: String) -> Self {
        Self(oid: "1.2.840.113635.100.8.7", critical: false,
             value: DER.sequence(DER.explicitContext(1400, DER.octetString(Array(version.utf8)))))
    }

    /// The conventional key identifier: 20 bytes derived from the public key.
    static func keyIdentifier(of key: ECKeyPair) -> [UInt8] {
        Array(SHA256.hash(key.publicPoint).prefix(20))
    }
}
