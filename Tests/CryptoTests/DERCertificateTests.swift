import Crypto
import Testing

/// DER certificate parsing on hostile input (found by Fuzz/Attestation).
@Suite("DER certificates")
struct DERCertificateTests {
    /// `tag length contents` with a short-form or two-byte length.
    private func tlv(_ tag: UInt8, _ contents: [UInt8]) -> [UInt8] {
        contents.count < 128 ? [tag, UInt8(contents.count)] + contents
            : [tag, 0x82, UInt8(contents.count >> 8), UInt8(contents.count & 0xff)] + contents
    }

    /// A v3 certificate whose TBS ends with `trailing` after the subject public key info.
    private func certificate(tbsTrailing trailing: [UInt8]) -> [UInt8] {
        let algorithm = tlv(0x30, tlv(0x06, [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02]))  // ecdsa-with-SHA256
        let time = tlv(0x17, Array("260101000000Z".utf8))
        let spki = tlv(0x30, tlv(0x30, tlv(0x06, [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01])) + tlv(0x03, [0x00, 0x04]))
        let tbs = tlv(0x30,
            tlv(0xA0, tlv(0x02, [2])) + tlv(0x02, [1]) + algorithm + tlv(0x30, []) + tlv(0x30, time + time)
                + tlv(0x30, []) + spki + trailing)
        return tlv(0x30, tbs + algorithm + tlv(0x03, [0x00, 0x01]))
    }

    @Test("reads a certificate with a well-formed issuer unique identifier")
    func uniqueIdentifier() {
        #expect(DERCertificate(certificate(tbsTrailing: [0x81, 0x02, 0x00, 0xff])) != nil)
    }

    @Test("refuses, and returns, when a unique identifier's length runs past the TBS (it used to loop forever)")
    func truncatedUniqueIdentifier() {
        #expect(DERCertificate(certificate(tbsTrailing: [0x81, 0x05, 0x00])) == nil)
        #expect(DERCertificate(certificate(tbsTrailing: [0xA2])) == nil)
    }
}
