internal import COpenSSL

extension IssuedCertificate {
    /// The certificate as PEM (`BEGIN CERTIFICATE`).
    var pem: String {
        PEMText.written { PEM_write_bio_X509($0, x509) }
    }

    /// Reads the first certificate of a PEM text; nil when there is none.
    static func read(pem: String) -> IssuedCertificate? {
        PEMText.read(pem) { PEM_read_bio_X509($0, nil, nil, nil) }.map(IssuedCertificate.init(adopting:))
    }

    /// True when `key` is the private half of this certificate's public key.
    func isCertifying(_ key: ECKeyPair) -> Bool {
        X509_check_private_key(x509, key.pkey) == 1
    }
}
