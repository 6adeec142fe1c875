import Crypto

/// An X.509 certificate the simulator issued (through Crypto's ``CertificateBuilder``), kept both as Crypto's
/// certificate (to name it as an issuer and to embed it in CMS) and as its DER bytes.
final class IssuedCertificate: Sendable {
    /// One v3 extension, its value already DER-encoded (the content of `extnValue`).
    typealias Extension = CertificateBuilder.Extension

    /// What goes into a certificate; `issuer` nil means self-signed by `subjectKey`.
    struct Template {
        var subject: [(attribute: String, value: String)]
        var subjectKey: ECKeyPair
        var notBefore: Int64
        var notAfter: Int64
        var extensions: [Extension]
        /// "SHA256" or "SHA384": the digest of the issuer's ECDSA signature.
        var signatureDigest: String
    }

    let certificate: Certificate
    var der: [UInt8] { certificate.derEncoded }

    /// Builds and signs `template`, by `issuer` (its certificate and key) or self-signed.
    convenience init(_ template: Template, issuer: (certificate: IssuedCertificate, key: ECKeyPair)?) {
        let builder = CertificateBuilder(
            subject: template.subject, subjectKey: template.subjectKey.key, notBefore: template.notBefore,
            notAfter: template.notAfter, extensions: template.extensions,
            signatureDigest: template.signatureDigest == "SHA384" ? .sha384 : .sha256)
        self.init(certificate: CryptoCall.require("issuing a certificate") { () throws(CryptoError) in
            try builder.issue(by: issuer.map { (certificate: $0.certificate.certificate, key: $0.key.key) })
        })
    }

    /// A certificate the simulator issued earlier and read back from a file.
    init(certificate: Certificate) {
        self.certificate = certificate
    }
}
