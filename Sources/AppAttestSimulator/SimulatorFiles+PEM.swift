extension SimulatorFiles {
    /// The certificate in `directory/name`.
    static func readCertificate(_ directory: String, _ name: String) throws(SimulatorFileError) -> IssuedCertificate {
        let file = path(directory, name)
        guard let certificate = IssuedCertificate.read(pem: try read(file)) else {
            throw SimulatorFileError.malformed.with(detail: "\(file): no PEM certificate")
        }
        return certificate
    }

    /// The private key in `directory/name`, which must be the key `certificate` certifies.
    static func readKey(_ directory: String, _ name: String, certifiedBy certificate: IssuedCertificate) throws(SimulatorFileError) -> ECKeyPair {
        let file = path(directory, name)
        guard let key = ECKeyPair.read(pem: try read(file)) else {
            throw SimulatorFileError.malformed.with(detail: "\(file): no P-256 or P-384 private key")
        }
        guard certificate.isCertifying(key) else {
            throw SimulatorFileError.malformed.with(detail: "\(file): not the key of its certificate")
        }
        return key
    }

    /// Writes `certificate` (0644) and `key` (0600) into `directory`.
    static func write(
        _ certificate: IssuedCertificate, as certificateName: String, key: ECKeyPair, as keyName: String, into directory: String
    ) throws(SimulatorFileError) {
        try write(key.privateKeyPEM, to: path(directory, keyName), mode: privateMode)
        try write(certificate.pem, to: path(directory, certificateName), mode: publicMode)
    }
}
