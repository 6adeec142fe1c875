import COpenSSL

/// Independent checks of what the simulator produced, done with OpenSSL directly.
enum OpenSSLCheck {
    /// A parsed certificate, freed with the value.
    final class X509Certificate {
        let pointer: OpaquePointer

        init?(der: [UInt8]) {
            let parsed = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
                var cursor = buffer.baseAddress
                return d2i_X509(nil, &cursor, buffer.count)
            }
            guard let parsed else { return nil }
            pointer = parsed
        }

        deinit { X509_free(pointer) }

        /// The content of the extension `oid`'s OCTET STRING.
        func extensionValue(_ oid: String) -> [UInt8]? {
            guard let object = OBJ_txt2obj(oid, 1) else { return nil }
            defer { ASN1_OBJECT_free(object) }
            let index = X509_get_ext_by_OBJ(pointer, object, -1)
            guard index >= 0, let data = X509_EXTENSION_get_data(X509_get_ext(pointer, index)) else { return nil }
            return [UInt8](UnsafeBufferPointer(start: ASN1_STRING_get0_data(data), count: Int(ASN1_STRING_length(data))))
        }

        /// The uncompressed public point.
        var publicPoint: [UInt8] {
            let key = X509_get0_pubkey(pointer)
            var point = [UInt8](repeating: 0, count: 133)
            var length = 0
            _ = EVP_PKEY_get_octet_string_param(key, "pub", &point, point.count, &length)
            return Array(point.prefix(length))
        }

        var subjectCommonName: String? {
            let name = X509_get_subject_name(pointer)
            var buffer = [CChar](repeating: 0, count: 256)
            let count = X509_NAME_get_text_by_NID(name, NID_commonName, &buffer, Int32(buffer.count))
            guard count > 0 else { return nil }
            return String(decoding: buffer.prefix(Int(count)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }

        var signatureAlgorithm: String {
            String(cString: OBJ_nid2sn(X509_get_signature_nid(pointer)))
        }

        /// notAfter − notBefore, in seconds.
        var validitySeconds: Int64 {
            var days: Int32 = 0
            var seconds: Int32 = 0
            _ = ASN1_TIME_diff(&days, &seconds, X509_get0_notBefore(pointer), X509_get0_notAfter(pointer))
            return Int64(days) * 86_400 + Int64(seconds)
        }

        /// True when the certificate's notBefore is exactly `time` (seconds since the Unix epoch).
        func notBefore(equals time: Int64) -> Bool {
            ASN1_TIME_cmp_time_t(X509_get0_notBefore(pointer), time_t(time)) == 0
        }
    }

    /// OpenSSL's verdict on `leaf` ← `intermediate` ← pinned `root` at `time`: 0 (X509_V_OK) or the error code.
    static func verifyChain(leaf: [UInt8], intermediate: [UInt8], root: [UInt8], at time: Int64) -> Int32 {
        guard let leafCert = X509Certificate(der: leaf), let intermediateCert = X509Certificate(der: intermediate),
              let rootCert = X509Certificate(der: root)
        else { return -1 }
        let store = X509_STORE_new()
        defer { X509_STORE_free(store) }
        X509_STORE_add_cert(store, rootCert.pointer)
        let untrusted = OPENSSL_sk_new_null()
        defer { OPENSSL_sk_free(untrusted) }
        OPENSSL_sk_push(untrusted, UnsafeRawPointer(intermediateCert.pointer))
        let context = X509_STORE_CTX_new()
        defer { X509_STORE_CTX_free(context) }
        X509_STORE_CTX_init(context, store, leafCert.pointer, untrusted)
        X509_VERIFY_PARAM_set_time(X509_STORE_CTX_get0_param(context), time_t(time))
        return X509_verify_cert(context) == 1 ? 0 : X509_STORE_CTX_get_error(context)
    }

    /// ECDSA-with-SHA256 verification of `signature` (DER) over `message` with a 65-byte P-256 point.
    static func verifyP256(signature: [UInt8], message: [UInt8], point: [UInt8]) -> Bool {
        guard let key = p256Key(point: point) else { return false }
        defer { EVP_PKEY_free(key) }
        let context = EVP_MD_CTX_new()
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit_ex(context, nil, "SHA256", nil, nil, key, nil) == 1 else { return false }
        return EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
    }

    /// The key from its point, through the fixed P-256 SubjectPublicKeyInfo prefix.
    static func p256Key(point: [UInt8]) -> OpaquePointer? {
        let prefix: [UInt8] = [
            0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01,
            0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
        ]
        let spki = prefix + point
        return spki.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
    }

    /// The signed content of a CMS receipt verified to `root` only (no embedded certificate trusted), with the
    /// number of certificates it embeds; nil when verification fails.
    static func verifyReceipt(_ der: [UInt8], root: [UInt8], at time: Int64) -> (content: [UInt8], certificateCount: Int)? {
        guard let rootCert = X509Certificate(der: root) else { return nil }
        let parsed = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor = buffer.baseAddress
            return d2i_CMS_ContentInfo(nil, &cursor, buffer.count)
        }
        guard let cms = parsed else { return nil }
        defer { CMS_ContentInfo_free(cms) }
        let store = X509_STORE_new()
        defer { X509_STORE_free(store) }
        X509_STORE_add_cert(store, rootCert.pointer)
        X509_VERIFY_PARAM_set_time(X509_STORE_get0_param(store), time_t(time))
        let output = BIO_new(BIO_s_mem())
        defer { BIO_free(output) }
        guard CMS_verify(cms, nil, store, nil, output, UInt32(CMS_BINARY)) == 1 else { return nil }
        var data: UnsafeMutablePointer<CChar>?
        let count = BIO_ctrl(output, BIO_CTRL_INFO, 0, &data)
        let certificates = CMS_get1_certs(cms)
        defer { OPENSSL_sk_pop_free(certificates, { X509_free(OpaquePointer($0)) }) }
        return ([UInt8](UnsafeRawBufferPointer(start: data, count: count)), Int(OPENSSL_sk_num(certificates)))
    }

    /// The DER SubjectPublicKeyInfo of a PEM `PUBLIC KEY`, as OpenSSL reads it.
    static func pemPublicKeyDER(_ pem: String) -> [UInt8]? {
        Array(pem.utf8).withUnsafeBytes { raw -> [UInt8]? in
            let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count))
            defer { BIO_free(bio) }
            guard let key = PEM_read_bio_PUBKEY(bio, nil, nil, nil) else { return nil }
            defer { EVP_PKEY_free(key) }
            let count = Int(i2d_PUBKEY(key, nil))
            guard count > 0 else { return nil }
            return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                var cursor = buffer.baseAddress
                initialized = Int(i2d_PUBKEY(key, &cursor))
            }
        }
    }

    /// The DER of each certificate a CMS message embeds, in order, and its signer's signed-attribute count
    /// (-1 when the signer has none, as in Apple's receipts).
    static func receiptStructure(_ der: [UInt8]) -> (certificates: [[UInt8]], signedAttributes: Int32)? {
        let parsed = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor = buffer.baseAddress
            return d2i_CMS_ContentInfo(nil, &cursor, buffer.count)
        }
        guard let cms = parsed else { return nil }
        defer { CMS_ContentInfo_free(cms) }
        let certificates = CMS_get1_certs(cms)
        defer { OPENSSL_sk_pop_free(certificates, { X509_free(OpaquePointer($0)) }) }
        let ders = (0..<OPENSSL_sk_num(certificates)).map { index in
            let certificate = OpaquePointer(OPENSSL_sk_value(certificates, index))
            let count = Int(i2d_X509(certificate, nil))
            return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                var cursor = buffer.baseAddress
                initialized = Int(i2d_X509(certificate, &cursor))
            }
        }
        let signers = CMS_get0_SignerInfos(cms)
        guard OPENSSL_sk_num(signers) == 1 else { return nil }
        let signer = OpaquePointer(OPENSSL_sk_value(signers, 0))
        return (ders, CMS_signed_get_attr_count(signer))
    }
}
