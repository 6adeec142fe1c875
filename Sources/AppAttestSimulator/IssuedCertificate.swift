internal import COpenSSL
import Crypto

/// An X.509 certificate the simulator issued, kept both as OpenSSL's object (to name it as an issuer and to embed
/// it in CMS) and as its DER bytes.
///
/// `@unchecked Sendable`: the `X509` is fully built and signed before this object exists and is only read after.
final class IssuedCertificate: @unchecked Sendable {
    /// One v3 extension, its value already DER-encoded (the content of `extnValue`).
    struct Extension {
        var oid: String
        var critical: Bool
        var value: [UInt8]
    }

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

    let x509: OpaquePointer
    let der: [UInt8]

    /// Builds and signs `template`, by `issuer` (its certificate and key) or self-signed.
    init(_ template: Template, issuer: (certificate: IssuedCertificate, key: ECKeyPair)?) {
        let x509 = OpenSSLCall.require(X509_new(), "X509_new")
        OpenSSLCall.require(X509_set_version(x509, 2) == 1, "X509_set_version")
        let serial = SecureRandom.bytes(count: 8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } >> 1
        OpenSSLCall.require(ASN1_INTEGER_set_uint64(X509_get_serialNumber(x509), serial) == 1, "ASN1_INTEGER_set_uint64")

        let name = OpenSSLCall.require(X509_NAME_new(), "X509_NAME_new")
        defer { X509_NAME_free(name) }
        for (attribute, value) in template.subject {
            OpenSSLCall.require(
                X509_NAME_add_entry_by_txt(name, attribute, MBSTRING_UTF8, value, -1, -1, 0) == 1,
                "X509_NAME_add_entry_by_txt(\(attribute))")
        }
        OpenSSLCall.require(X509_set_subject_name(x509, name) == 1, "X509_set_subject_name")
        let issuerName = issuer.map { X509_get_subject_name($0.certificate.x509) } ?? name
        OpenSSLCall.require(X509_set_issuer_name(x509, issuerName) == 1, "X509_set_issuer_name")

        OpenSSLCall.require(ASN1_TIME_set(X509_getm_notBefore(x509), time_t(template.notBefore)) != nil, "notBefore")
        OpenSSLCall.require(ASN1_TIME_set(X509_getm_notAfter(x509), time_t(template.notAfter)) != nil, "notAfter")
        OpenSSLCall.require(X509_set_pubkey(x509, template.subjectKey.pkey) == 1, "X509_set_pubkey")

        for item in template.extensions {
            Self.add(item, to: x509)
        }

        let signer = issuer?.key ?? template.subjectKey
        let digest = template.signatureDigest == "SHA384" ? EVP_sha384() : EVP_sha256()
        OpenSSLCall.require(X509_sign(x509, signer.pkey, digest) > 0, "X509_sign")
        self.x509 = x509
        self.der = OpenSSLCall.encode("i2d_X509") { i2d_X509(x509, $0) }
    }

    /// Takes ownership of `x509`, a certificate the simulator issued earlier and read back from a file.
    init(adopting x509: OpaquePointer) {
        self.x509 = x509
        self.der = OpenSSLCall.encode("i2d_X509") { i2d_X509(x509, $0) }
    }

    deinit { X509_free(x509) }

    private static func add(_ item: Extension, to x509: OpaquePointer) {
        let object = OpenSSLCall.require(OBJ_txt2obj(item.oid, 1), "OBJ_txt2obj(\(item.oid))")
        defer { ASN1_OBJECT_free(object) }
        let value = OpenSSLCall.require(ASN1_OCTET_STRING_new(), "ASN1_OCTET_STRING_new")
        defer { ASN1_OCTET_STRING_free(value) }
        OpenSSLCall.require(
            ASN1_OCTET_STRING_set(value, item.value, Int32(item.value.count)) == 1, "ASN1_OCTET_STRING_set")
        let made = OpenSSLCall.require(
            X509_EXTENSION_create_by_OBJ(nil, object, item.critical ? 1 : 0, value), "X509_EXTENSION_create_by_OBJ")
        defer { X509_EXTENSION_free(made) }
        OpenSSLCall.require(X509_add_ext(x509, made, -1) == 1, "X509_add_ext(\(item.oid))")
    }
}
