internal import COpenSSL

/// Issues X.509 v3 certificates: a subject and its key, a validity, extensions given as OID and DER value, signed
/// with ECDSA by an issuer (its certificate and key) or self-signed. For the simulator's CAs and the certificates
/// tests need; attestd itself issues none.
public struct CertificateBuilder: Sendable {
    /// One v3 extension, its value already DER-encoded (the content of `extnValue`).
    public struct Extension: Sendable {
        public var oid: String
        public var critical: Bool
        public var value: [UInt8]

        public init(oid: String, critical: Bool, value: [UInt8]) {
            self.oid = oid
            self.critical = critical
            self.value = value
        }
    }

    /// The subject's name, attribute by attribute (e.g. `("CN", "Apple App Attestation CA 1")`), in order.
    public var subject: [(attribute: String, value: String)]
    /// The key the certificate certifies.
    public var subjectKey: ECPrivateKey
    /// Validity, in seconds since 1970.
    public var notBefore: Int64
    public var notAfter: Int64
    public var extensions: [Extension]
    /// The digest of the issuer's ECDSA signature.
    public var signatureDigest: SignatureDigest

    public init(subject: [(attribute: String, value: String)], subjectKey: ECPrivateKey, notBefore: Int64,
                notAfter: Int64, extensions: [Extension] = [], signatureDigest: SignatureDigest = .sha256) {
        self.subject = subject
        self.subjectKey = subjectKey
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.extensions = extensions
        self.signatureDigest = signatureDigest
    }

    /// The certificate, with a random 63-bit serial number, signed by `issuer` (its certificate names the issuer,
    /// its key signs), or self-signed by the subject's key when nil.
    public func issue(by issuer: (certificate: Certificate, key: ECPrivateKey)? = nil) throws(CryptoError) -> Certificate {
        OpenSSLErrorQueue.clear()
        guard let x509 = X509_new() else { throw OpenSSLErrorQueue.error(.internalFailure, "X509_new") }
        defer { X509_free(x509) }
        let serial = SecureRandom.bytes(count: 8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } >> 1
        guard X509_set_version(x509, 2) == 1, ASN1_INTEGER_set_uint64(X509_get_serialNumber(x509), serial) == 1 else {
            throw OpenSSLErrorQueue.error(.internalFailure, "cannot set the version and serial number")
        }
        guard let name = X509_NAME_new() else { throw OpenSSLErrorQueue.error(.internalFailure, "X509_NAME_new") }
        defer { X509_NAME_free(name) }
        for (attribute, value) in subject {
            guard X509_NAME_add_entry_by_txt(name, attribute, MBSTRING_UTF8, value, -1, -1, 0) == 1 else {
                throw OpenSSLErrorQueue.error(.internalFailure, "cannot add \(attribute) to the subject")
            }
        }
        let issuerName = issuer.map { X509_get_subject_name($0.certificate.pointer) } ?? name
        guard X509_set_subject_name(x509, name) == 1, X509_set_issuer_name(x509, issuerName) == 1,
              ASN1_TIME_set(X509_getm_notBefore(x509), time_t(notBefore)) != nil,
              ASN1_TIME_set(X509_getm_notAfter(x509), time_t(notAfter)) != nil,
              X509_set_pubkey(x509, subjectKey.key) == 1
        else { throw OpenSSLErrorQueue.error(.internalFailure, "cannot set the names, validity or key") }
        for item in extensions {
            try Self.add(item, to: x509)
        }
        let signer = issuer?.key ?? subjectKey
        let digest = signatureDigest == .sha384 ? EVP_sha384() : EVP_sha256()
        guard X509_sign(x509, signer.key, digest) > 0 else {
            throw OpenSSLErrorQueue.error(.internalFailure, "cannot sign the certificate")
        }
        return Certificate(retaining: x509)
    }

    private static func add(_ item: Extension, to x509: OpaquePointer) throws(CryptoError) {
        guard let object = OBJ_txt2obj(item.oid, 1) else {
            throw OpenSSLErrorQueue.error(.internalFailure, "not an OID: \(item.oid)")
        }
        defer { ASN1_OBJECT_free(object) }
        guard let value = ASN1_OCTET_STRING_new() else { throw OpenSSLErrorQueue.error(.internalFailure, "ASN1_OCTET_STRING_new") }
        defer { ASN1_OCTET_STRING_free(value) }
        guard ASN1_OCTET_STRING_set(value, item.value, Int32(item.value.count)) == 1,
              let made = X509_EXTENSION_create_by_OBJ(nil, object, item.critical ? 1 : 0, value)
        else { throw OpenSSLErrorQueue.error(.internalFailure, "cannot make extension \(item.oid)") }
        defer { X509_EXTENSION_free(made) }
        guard X509_add_ext(x509, made, -1) == 1 else {
            throw OpenSSLErrorQueue.error(.internalFailure, "cannot add extension \(item.oid)")
        }
    }
}
