internal import COpenSSL
internal import CShimsOpenSSL

extension SignedData {
    /// How a signed CMS message is written.
    public enum Encoding: Sendable, Hashable {
        /// Definite lengths throughout.
        case der
        /// OpenSSL's streaming encoder: indefinite lengths, the content as a constructed OCTET STRING of 1000-byte
        /// chunks, as Apple writes receipts.
        case streamedBER
    }

    /// `content` as a CMS SignedData: content type id-data, one signer (`signer` and its `key`) over the content
    /// itself with SHA-256 and no signed attributes (as Apple signs receipts), embedding `signer` and
    /// `certificates` (DER sorts them, as a SET OF). For the simulator's receipts and tests; attestd signs none.
    public static func sign(
        _ content: [UInt8], signer: Certificate, key: ECPrivateKey, certificates: [Certificate], encoding: Encoding = .der
    ) throws(CryptoError) -> [UInt8] {
        OpenSSLErrorQueue.clear()
        let flags = UInt32(CMS_BINARY | CMS_NOATTR) | (encoding == .streamedBER ? UInt32(CMS_STREAM) : 0)
        let signed: [UInt8]? = content.withUnsafeBytes { raw in
            guard let input = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(input) }
            guard let cms = CMS_sign(signer.pointer, key.key, nil, input, flags) else { return nil }
            defer { CMS_ContentInfo_free(cms) }
            for certificate in certificates where CMS_add1_cert(cms, certificate.pointer) != 1 { return nil }
            switch encoding {
            case .der:
                let count = Int(i2d_CMS_ContentInfo(cms, nil))
                guard count > 0 else { return nil }
                return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                    var cursor = buffer.baseAddress
                    initialized = max(0, Int(i2d_CMS_ContentInfo(cms, &cursor)))
                }
            case .streamedBER:
                return streamBER(cms, content: raw)
            }
        }
        guard let signed else { throw OpenSSLErrorQueue.error(.internalFailure, "cannot sign CMS SignedData") }
        return signed
    }

    /// Writes `cms` through OpenSSL's streaming encoder, feeding the content in 1000-byte writes: each write
    /// becomes one primitive OCTET STRING chunk of the indefinite-length eContent.
    private static func streamBER(_ cms: OpaquePointer, content: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let output = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(output) }
        guard var stream = BIO_new_CMS(output, cms) else { return nil }
        var written = true
        var offset = 0
        while written && offset < content.count {
            let count = min(1000, content.count - offset)
            written = BIO_write(stream, content.baseAddress! + offset, Int32(count)) == count
            offset += count
        }
        // BIO_flush: signs and writes the rest of the SignedData.
        if written { written = BIO_ctrl(stream, BIO_CTRL_FLUSH, 0, nil) == 1 }
        // Free the filters BIO_new_CMS pushed in front of `output`, but not `output` itself.
        while stream != output, let next = BIO_pop(stream) {
            BIO_free(stream)
            stream = next
        }
        guard written else { return nil }
        var data: UnsafeMutablePointer<CChar>?
        let count = cshims_BIO_get_mem_data(output, &data)
        return [UInt8](UnsafeRawBufferPointer(start: data, count: count))
    }
}
