internal import COpenSSL
internal import CShims

/// A CMS (PKCS#7) SignedData message with one signer, decoded by OpenSSL from BER or DER.
///
/// OpenSSL reassembles chunked (constructed, indefinite-length) content, which a hand-written DER walker would
/// misread. Verifying the signature and trusting the signer are separate steps: `verifyingSignature` checks the
/// signer's signature over the content, and the caller checks the signer's chain against its own pinned roots
/// (never against a root that travels inside the message).
public struct SignedData: Sendable {
    /// The encapsulated content, reassembled.
    public let content: [UInt8]
    /// The certificate that signed, found among the embedded certificates.
    public let signer: Certificate
    /// Every certificate embedded in the message, in message order (the signer included).
    public let certificates: [Certificate]

    /// Decodes `encoded` and verifies its single signer's signature (and content digest) with the signer's embedded
    /// certificate. The signer's chain is not checked here.
    public static func verifyingSignature(_ encoded: [UInt8]) throws(CryptoError) -> SignedData {
        try decode(encoded, verify: true)
    }

    /// Decodes `encoded` without checking anything, for people inspecting a message.
    public static func decodeUnverified(_ encoded: [UInt8]) throws(CryptoError) -> SignedData {
        try decode(encoded, verify: false)
    }

    private static func decode(_ encoded: [UInt8], verify: Bool) throws(CryptoError) -> SignedData {
        OpenSSLErrorQueue.clear()
        let parsed: OpaquePointer? = encoded.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_CMS_ContentInfo(nil, &cursor, buffer.count)
        }
        guard let cms = parsed else { throw OpenSSLErrorQueue.error(.malformedSignedData, "not CMS") }
        defer { CMS_ContentInfo_free(cms) }
        guard OBJ_obj2nid(CMS_get0_type(cms)) == NID_pkcs7_signed else {
            throw CryptoError(.malformedSignedData, "CMS content type is not SignedData")
        }

        let content: [UInt8]
        if verify {
            guard let output = BIO_new(BIO_s_mem()) else {
                throw OpenSSLErrorQueue.error(.internalFailure, "cannot allocate a memory BIO")
            }
            defer { BIO_free(output) }
            // The chain is the caller's business: it must end at a pinned root, not the copy in the message.
            guard CMS_verify(cms, nil, nil, nil, output, UInt32(CMS_NO_SIGNER_CERT_VERIFY | CMS_BINARY)) == 1 else {
                throw OpenSSLErrorQueue.error(.badSignature, "the CMS signature does not verify")
            }
            var data: UnsafeMutablePointer<CChar>? = nil
            let count = cshims_BIO_get_mem_data(output, &data)
            content = count > 0 && data != nil ? Array(UnsafeRawBufferPointer(start: data, count: count)) : []
        } else {
            guard let slot = CMS_get0_content(cms), let octets = slot.pointee, let bytes = ASN1_STRING_get0_data(octets)
            else { throw CryptoError(.malformedSignedData, "the SignedData carries no content") }
            content = Array(UnsafeBufferPointer(start: bytes, count: Int(ASN1_STRING_length(octets))))
        }

        var certificates: [Certificate] = []
        if let stack = CMS_get1_certs(cms) {
            defer { cshims_sk_X509_pop_free(stack) }
            for index in 0..<cshims_sk_X509_num(stack) {
                if let pointer = cshims_sk_X509_value(stack, index) { certificates.append(Certificate(retaining: pointer)) }
            }
        }

        guard let infos = CMS_get0_SignerInfos(cms), OPENSSL_sk_num(infos) == 1,
              let info = OPENSSL_sk_value(infos, 0)
        else { throw CryptoError(.malformedSignedData, "a SignedData with exactly one signer was expected") }
        let signerInfo = OpaquePointer(info)
        guard let signer = certificates.first(where: { CMS_SignerInfo_cert_cmp(signerInfo, $0.pointer) == 0 }) else {
            throw CryptoError(.malformedSignedData, "the signer's certificate is not in the message")
        }
        _ = OpenSSLErrorQueue.drain()
        return SignedData(content: content, signer: signer, certificates: certificates)
    }
}
