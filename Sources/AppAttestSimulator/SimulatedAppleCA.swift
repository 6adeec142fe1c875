import Basics

/// A test certificate hierarchy shaped like Apple's App Attestation CA: a self-signed P-384 root and a P-384
/// intermediate (CA, path length 0) signed with ecdsa-with-SHA384, which signs 3-day P-256 credential
/// certificates with ecdsa-with-SHA256.
///
/// Give `rootDER` to a verifier as its trust anchor. The keys are made once here, so each attestation costs one
/// P-384 signature. Safe to share between threads.
public final class SimulatedAppleCA: Sendable {
    /// The root certificate (DER), the trust anchor to pin in a verifier under test.
    public var rootDER: [UInt8] { root.der }
    /// The intermediate certificate (DER), the second element of every `x5c`.
    public var intermediateDER: [UInt8] { intermediate.der }

    let root: IssuedCertificate
    let rootKey: ECKeyPair
    let intermediate: IssuedCertificate
    let intermediateKey: ECKeyPair

    /// A hierarchy made earlier, read back from files (`SimulatedAppleCA+Files.swift`).
    init(root: IssuedCertificate, rootKey: ECKeyPair, intermediate: IssuedCertificate, intermediateKey: ECKeyPair) {
        self.root = root
        self.rootKey = rootKey
        self.intermediate = intermediate
        self.intermediateKey = intermediateKey
    }

    /// Creates a root and an intermediate, both valid from `validFrom` to `validUntil` (seconds since the Unix
    /// epoch; by default ten years back to twenty years ahead, so tests may pin any plausible time).
    ///
    /// - Parameters:
    ///   - name: distinguishes hierarchies in certificate subjects (a test may build an untrusted twin).
    ///   - intermediateValidUntil: lets a test expire the intermediate alone; defaults to `validUntil`.
    public init(
        name: String = "Simulated",
        validFrom: Int64? = nil,
        validUntil: Int64? = nil,
        intermediateValidUntil: Int64? = nil
    ) {
        let now = TimeSource.system.unixSeconds()
        let notBefore = validFrom ?? now - 10 * 365 * 86_400
        let notAfter = validUntil ?? now + 20 * 365 * 86_400
        let rootKey = ECKeyPair(curve: .p384)
        self.rootKey = rootKey
        root = IssuedCertificate(
            .init(
                subject: [("CN", "\(name) App Attestation Root CA"), ("O", "attestd simulator"), ("ST", "California")],
                subjectKey: rootKey,
                notBefore: notBefore, notAfter: notAfter,
                extensions: [
                    .basicConstraints(ca: true),
                    .subjectKeyIdentifier(IssuedCertificate.Extension.keyIdentifier(of: rootKey)),
                    .caKeyUsage,
                ],
                signatureDigest: "SHA384"),
            issuer: nil)
        intermediateKey = ECKeyPair(curve: .p384)
        intermediate = IssuedCertificate(
            .init(
                subject: [("CN", "\(name) App Attestation CA 1"), ("O", "attestd simulator"), ("ST", "California")],
                subjectKey: intermediateKey,
                notBefore: notBefore, notAfter: intermediateValidUntil ?? notAfter,
                extensions: [
                    .basicConstraints(ca: true, pathLength: 0),
                    .authorityKeyIdentifier(IssuedCertificate.Extension.keyIdentifier(of: rootKey)),
                    .subjectKeyIdentifier(IssuedCertificate.Extension.keyIdentifier(of: intermediateKey)),
                    .caKeyUsage,
                ],
                signatureDigest: "SHA384"),
            issuer: (root, rootKey))
    }

    /// A credential certificate for `subjectKey`, signed by the intermediate: the one P-384 signature of an
    /// attestation.
    func credentialCertificate(
        subjectKey: ECKeyPair,
        commonName: String,
        extensions: [IssuedCertificate.Extension],
        notBefore: Int64,
        notAfter: Int64
    ) -> IssuedCertificate {
        IssuedCertificate(
            .init(
                subject: [("CN", commonName), ("OU", "AAA Certification"), ("O", "attestd simulator"), ("ST", "California")],
                subjectKey: subjectKey,
                notBefore: notBefore, notAfter: notAfter,
                extensions: extensions,
                signatureDigest: "SHA256"),
            issuer: (intermediate, intermediateKey))
    }
}
