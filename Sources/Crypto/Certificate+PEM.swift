internal import COpenSSL

extension Certificate {
    /// The certificate as PEM (`BEGIN CERTIFICATE`).
    public var pem: String {
        PEM.written { PEM_write_bio_X509($0, pointer) } ?? ""
    }

    /// The first certificate of a PEM text.
    public convenience init(pemEncoded pem: String) throws(CryptoError) {
        OpenSSLErrorQueue.clear()
        guard let x509 = PEM.withReadBIO(pem, { PEM_read_bio_X509($0, nil, nil, nil) }) ?? nil else {
            throw OpenSSLErrorQueue.error(.malformedCertificate, "no PEM certificate")
        }
        defer { X509_free(x509) }
        self.init(retaining: x509)
    }

    /// True when `key` is the private half of this certificate's public key.
    public func isCertifying(_ key: ECPrivateKey) -> Bool {
        let matches = X509_check_private_key(pointer, key.key) == 1
        if !matches { OpenSSLErrorQueue.clear() }
        return matches
    }
}
