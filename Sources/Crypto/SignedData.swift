internal import COpenSSL
internal import CShimsOpenSSL

/// A CMS (PKCS#7) SignedData message with one signer, read from BER or DER.
///
/// Verifying the signature and trusting the signer are separate steps: `verifyingSignature` checks the signer's
/// signature over the content, and the caller checks the signer's chain against its own pinned roots (never
/// against a root that travels inside the message).
public struct SignedData: Sendable {
    /// The encapsulated content, reassembled from its chunks.
    public let content: [UInt8]
    /// Every certificate embedded in the message, DER, in message order (the signer's included).
    public let certificatesDER: [[UInt8]]
    /// Which of `certificatesDER` signed.
    public let signerIndex: Int

    /// The signer's certificate, DER.
    public var signerDER: [UInt8] { certificatesDER[signerIndex] }
    /// The embedded certificates other than the signer's: the untrusted intermediates of its chain.
    public var otherCertificatesDER: [[UInt8]] {
        certificatesDER.enumerated().filter { $0.offset != signerIndex }.map(\.element)
    }

    /// The embedded certificates decoded by OpenSSL, for display.
    public func certificates() throws(CryptoError) -> [Certificate] {
        var certificates: [Certificate] = []
        for der in certificatesDER { certificates.append(try Certificate(derEncoded: der)) }
        return certificates
    }

    /// Decodes `encoded` and verifies its single signer's signature (and content digest) with the signer's
    /// embedded certificate. The signer's chain is not checked here.
    ///
    /// The common shape (one signer named by issuer and serial, SHA-256, a P-256 key) is read
    /// and verified directly, because OpenSSL 3.0 takes several times longer to decode the three embedded
    /// certificates than to verify the signature. Anything else, and any failure, goes to OpenSSL's `CMS_verify`,
    /// whose verdict is final.
    public static func verifyingSignature(_ encoded: [UInt8]) throws(CryptoError) -> SignedData {
        if let message = CMSMessage(encoded), message.hasValidSignature() { return message.signedData }
        return try decodeWithOpenSSL(encoded, verify: true)
    }

    /// Decodes `encoded` without checking anything, for people inspecting a message.
    public static func decodeUnverified(_ encoded: [UInt8]) throws(CryptoError) -> SignedData {
        if let message = CMSMessage(encoded) { return message.signedData }
        return try decodeWithOpenSSL(encoded, verify: false)
    }

    init(content: [UInt8], certificatesDER: [[UInt8]], signerIndex: Int) {
        self.content = content
        self.certificatesDER = certificatesDER
        self.signerIndex = signerIndex
    }

    static func decodeWithOpenSSL(_ encoded: [UInt8], verify: Bool) throws(CryptoError) -> SignedData {
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
        guard let signerIndex = certificates.firstIndex(where: { CMS_SignerInfo_cert_cmp(signerInfo, $0.pointer) == 0 })
        else { throw CryptoError(.malformedSignedData, "the signer's certificate is not in the message") }
        _ = OpenSSLErrorQueue.drain()
        return SignedData(content: content, certificatesDER: certificates.map(\.derEncoded), signerIndex: signerIndex)
    }
}
