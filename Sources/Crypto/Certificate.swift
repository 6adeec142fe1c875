import Basics
internal import COpenSSL
internal import CShimsOpenSSL
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A parsed X.509 certificate (DER), immutable once parsed.
///
/// It is `@unchecked Sendable` because OpenSSL never mutates a parsed certificate except to fill its extension cache,
/// which it guards with the certificate's own lock.
public final class Certificate: @unchecked Sendable {
    let pointer: OpaquePointer
    /// The certificate exactly as encoded.
    public let derEncoded: [UInt8]

    /// Parses one DER certificate; trailing bytes are refused.
    public init(derEncoded: [UInt8]) throws(CryptoError) {
        OpenSSLErrorQueue.clear()
        let parsed: OpaquePointer? = derEncoded.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            let certificate = d2i_X509(nil, &cursor, buffer.count)
            if let certificate, cursor != buffer.baseAddress.map({ $0 + buffer.count }) {
                X509_free(certificate)
                return nil
            }
            return certificate
        }
        guard let parsed else {
            throw OpenSSLErrorQueue.error(.malformedCertificate, "not a DER X.509 certificate")
        }
        self.pointer = parsed
        self.derEncoded = derEncoded
    }

    /// Wraps a certificate OpenSSL handed out, taking one more reference to it.
    init(retaining pointer: OpaquePointer) {
        X509_up_ref(pointer)
        self.pointer = pointer
        var output: UnsafeMutablePointer<UInt8>? = nil
        let count = i2d_X509(pointer, &output)
        if count > 0, let output {
            self.derEncoded = Array(UnsafeBufferPointer(start: output, count: Int(count)))
            cshims_OPENSSL_free(output)
        } else {
            self.derEncoded = []
        }
    }

    deinit { X509_free(pointer) }

    /// The start of the validity window, in Unix seconds.
    public var notBefore: Int64 { Self.unixTime(X509_get0_notBefore(pointer)) }
    /// The end of the validity window, in Unix seconds.
    public var notAfter: Int64 { Self.unixTime(X509_get0_notAfter(pointer)) }

    /// The subject name, one line in RFC 2253 order (`CN=…,OU=…,O=…`).
    public var subject: String { Self.oneLine(X509_get_subject_name(pointer)) }
    /// The issuer name, one line in RFC 2253 order.
    public var issuer: String { Self.oneLine(X509_get_issuer_name(pointer)) }

    /// The serial number as lowercase hex.
    public var serialNumberHex: String {
        guard let serial = X509_get0_serialNumber(pointer), let data = ASN1_STRING_get0_data(serial) else { return "" }
        let bytes = UnsafeBufferPointer(start: data, count: Int(ASN1_STRING_length(serial)))
        return bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }

    /// The SHA-256 digest of the DER encoding (the usual certificate fingerprint).
    public var sha256Fingerprint: [UInt8] { SHA256.hash(derEncoded) }

    /// The certificate's public key.
    public var publicKey: PublicKey? {
        guard let key = X509_get_pubkey(pointer) else { return nil }
        return PublicKey(taking: key)
    }

    /// The `extnValue` bytes of the extension with dotted object identifier `oid`, or nil when it is absent.
    public func extensionValue(oid: String) -> [UInt8]? {
        guard let object = OBJ_txt2obj(oid, 1) else { return nil }
        defer { ASN1_OBJECT_free(object) }
        let index = X509_get_ext_by_OBJ(pointer, object, -1)
        guard index >= 0, let ext = X509_get_ext(pointer, index), let value = X509_EXTENSION_get_data(ext),
              let data = ASN1_STRING_get0_data(value)
        else { return nil }
        return Array(UnsafeBufferPointer(start: data, count: Int(ASN1_STRING_length(value))))
    }

    /// The dotted object identifiers of every extension, in certificate order.
    public var extensionOIDs: [String] {
        (0..<max(0, X509_get_ext_count(pointer))).compactMap { index in
            guard let ext = X509_get_ext(pointer, index), let object = X509_EXTENSION_get_object(ext) else { return nil }
            var buffer = [CChar](repeating: 0, count: 128)
            let length = OBJ_obj2txt(&buffer, Int32(buffer.count), object, 1)
            guard length > 0 else { return nil }
            return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    static func unixTime(_ time: UnsafePointer<ASN1_TIME>?) -> Int64 {
        var broken = tm()
        guard let time, ASN1_TIME_to_tm(time, &broken) == 1,
              let date = CivilDate(year: Int64(broken.tm_year) + 1900, month: Int64(broken.tm_mon) + 1, day: Int64(broken.tm_mday))
        else { return 0 }
        return date.daysSince1970 * 86_400 + Int64(broken.tm_hour) * 3600 + Int64(broken.tm_min) * 60 + Int64(broken.tm_sec)
    }

    private static func oneLine(_ name: OpaquePointer?) -> String {
        guard let name, let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        guard X509_NAME_print_ex(bio, name, 0, cshims_XN_FLAG_RFC2253) >= 0 else { return "" }
        var data: UnsafeMutablePointer<CChar>? = nil
        let count = cshims_BIO_get_mem_data(bio, &data)
        guard count > 0, let data else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: count), as: UTF8.self)
    }
}

extension String {
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
