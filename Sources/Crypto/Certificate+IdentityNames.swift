internal import COpenSSL
internal import CShimsOpenSSL

extension Certificate {
    /// The names a TLS peer is known by: the DNS names and URIs of its subjectAltName (a SPIFFE id is a URI), then
    /// its subject's common name. Callers map these to what the peer may do; the chain is verified elsewhere.
    public var identityNames: [String] {
        var names: [String] = []
        if let raw = X509_get_ext_d2i(pointer, NID_subject_alt_name, nil, nil) {
            let alternatives = OpaquePointer(raw)
            defer { GENERAL_NAMES_free(alternatives) }
            for index in 0..<max(0, cshims_sk_GENERAL_NAME_num(alternatives)) {
                guard let name = cshims_sk_GENERAL_NAME_value(alternatives, index) else { continue }
                switch name.pointee.type {
                case GEN_DNS: if let text = Self.text(name.pointee.d.dNSName) { names.append(text) }
                case GEN_URI: if let text = Self.text(name.pointee.d.uniformResourceIdentifier) { names.append(text) }
                default: break
                }
            }
        }
        if let subject = X509_get_subject_name(pointer) {
            let index = X509_NAME_get_index_by_NID(subject, NID_commonName, -1)
            if index >= 0, let entry = X509_NAME_get_entry(subject, index), let data = X509_NAME_ENTRY_get_data(entry) {
                var output: UnsafeMutablePointer<UInt8>? = nil
                let count = ASN1_STRING_to_UTF8(&output, data)
                if count > 0, let output {
                    names.append(String(decoding: UnsafeBufferPointer(start: output, count: Int(count)), as: UTF8.self))
                }
                cshims_OPENSSL_free(output)
            }
        }
        return names
    }

    /// An IA5String's text; nil when empty or when it holds a byte outside printable ASCII (a name with a NUL or a
    /// control character could be made to match another).
    private static func text(_ string: UnsafeMutablePointer<ASN1_STRING>?) -> String? {
        guard let string, let data = ASN1_STRING_get0_data(string) else { return nil }
        let bytes = UnsafeBufferPointer(start: data, count: Int(ASN1_STRING_length(string)))
        guard !bytes.isEmpty, bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
