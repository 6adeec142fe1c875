import Basics
import Crypto

/// A test hierarchy shaped like the one that signs App Attest receipts: a self-signed P-384 "Root CA - G3", a
/// P-256 "Application Integration CA" signed with ecdsa-with-SHA384, and a P-256 "Fraud Receipt Signing"
/// certificate signed with ecdsa-with-SHA256. Receipts embed all three certificates, as Apple's do, so a verifier
/// must trust only its pinned copy of `rootDER`. Safe to share between threads.
public final class SimulatedReceiptCA: Sendable {
    /// How a receipt's CMS is serialised.
    public enum Encoding: Sendable {
        /// Definite lengths throughout.
        case der
        /// Indefinite lengths and a constructed eContent OCTET STRING in 1000-byte chunks, as Apple's real
        /// receipts are.
        case ber
    }

    /// The root certificate (DER), the trust anchor to pin in a receipt verifier under test.
    public var rootDER: [UInt8] { root.der }
    /// The intermediate ("Integration CA") certificate (DER).
    public var intermediateDER: [UInt8] { intermediate.der }
    /// The signing certificate (DER).
    public var signingCertificateDER: [UInt8] { signer.der }

    let root: IssuedCertificate
    let rootKey: ECKeyPair
    let intermediate: IssuedCertificate
    let intermediateKey: ECKeyPair
    let signer: IssuedCertificate
    let signerKey: ECKeyPair

    /// A hierarchy made earlier, read back from files (`SimulatedReceiptCA+Files.swift`).
    init(
        root: IssuedCertificate, rootKey: ECKeyPair, intermediate: IssuedCertificate, intermediateKey: ECKeyPair,
        signer: IssuedCertificate, signerKey: ECKeyPair
    ) {
        self.root = root
        self.rootKey = rootKey
        self.intermediate = intermediate
        self.intermediateKey = intermediateKey
        self.signer = signer
        self.signerKey = signerKey
    }

    /// Creates the three certificates, valid from `validFrom` to `validUntil` (seconds since the Unix epoch; by
    /// default ten years back to twenty years ahead); `signerValidUntil` lets a test expire the signing
    /// certificate alone.
    public init(name: String = "Simulated", validFrom: Int64? = nil, validUntil: Int64? = nil, signerValidUntil: Int64? = nil) {
        let now = TimeSource.system.unixSeconds()
        let notBefore = validFrom ?? now - 10 * 365 * 86_400
        let notAfter = validUntil ?? now + 20 * 365 * 86_400
        let rootKey = ECKeyPair(curve: .p384)
        self.rootKey = rootKey
        root = IssuedCertificate(
            .init(
                subject: [("CN", "\(name) Root CA - G3"), ("OU", "attestd simulator"), ("O", "attestd"), ("C", "US")],
                subjectKey: rootKey, notBefore: notBefore, notAfter: notAfter,
                extensions: [
                    .subjectKeyIdentifier(IssuedCertificate.Extension.keyIdentifier(of: rootKey)),
                    .basicConstraints(ca: true),
                    .caKeyUsage,
                ],
                signatureDigest: "SHA384"),
            issuer: nil)
        let intermediateKey = ECKeyPair(curve: .p256)
        self.intermediateKey = intermediateKey
        intermediate = IssuedCertificate(
            .init(
                subject: [("CN", "\(name) Application Integration CA 5 - G1"), ("OU", "attestd simulator"), ("O", "attestd"), ("C", "US")],
                subjectKey: intermediateKey, notBefore: notBefore, notAfter: notAfter,
                extensions: [
                    .basicConstraints(ca: true, pathLength: 0),
                    .authorityKeyIdentifier(IssuedCertificate.Extension.keyIdentifier(of: rootKey)),
                    .subjectKeyIdentifier(IssuedCertificate.Extension.keyIdentifier(of: intermediateKey)),
                    .caKeyUsage,
                ],
                signatureDigest: "SHA384"),
            issuer: (root, rootKey))
        signerKey = ECKeyPair(curve: .p256)
        signer = IssuedCertificate(
            .init(
                subject: [("CN", "\(name) Application Attestation Fraud Receipt Signing"), ("O", "attestd"), ("C", "US")],
                subjectKey: signerKey, notBefore: notBefore, notAfter: signerValidUntil ?? notAfter,
                extensions: [
                    .basicConstraints(ca: false),
                    .authorityKeyIdentifier(IssuedCertificate.Extension.keyIdentifier(of: intermediateKey)),
                    .subjectKeyIdentifier(IssuedCertificate.Extension.keyIdentifier(of: signerKey)),
                    .signingKeyUsage,
                ],
                signatureDigest: "SHA256"),
            issuer: (intermediate, intermediateKey))
    }

    /// `receipt` as a CMS SignedData (content type id-data, SHA-256, one ecdsa-with-SHA256 signer over the content,
    /// without signed attributes, as Apple signs receipts) embedding the signing, intermediate and root
    /// certificates (DER sorts them, as a SET OF).
    public func sign(_ receipt: SimulatedReceipt, encoding: Encoding = .der) -> [UInt8] {
        sign(payload: receipt.payloadDER, encoding: encoding)
    }

    /// Any bytes as a receipt's signed content, for tests of malformed payloads.
    public func sign(payload: [UInt8], encoding: Encoding = .der) -> [UInt8] {
        CryptoCall.require("signing a receipt") { () throws(CryptoError) in
            try SignedData.sign(
                payload, signer: signer.certificate, key: signerKey.key,
                certificates: [intermediate.certificate, root.certificate],
                encoding: encoding == .ber ? .streamedBER : .der)
        }
    }
}
