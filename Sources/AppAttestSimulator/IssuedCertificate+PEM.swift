import Crypto

extension IssuedCertificate {
    /// The certificate as PEM (`BEGIN CERTIFICATE`).
    var pem: String { certificate.pem }

    /// Reads the first certificate of a PEM text; nil when there is none.
    static func read(pem: String) -> IssuedCertificate? {
        (try? Certificate(pemEncoded: pem)).map(IssuedCertificate.init(certificate:))
    }

    /// True when `key` is the private half of this certificate's public key.
    func isCertifying(_ key: ECKeyPair) -> Bool {
        certificate.isCertifying(key.key)
    }
}
