import AppAttest
import Basics
import Crypto
import Testing

@Suite("Pinned Apple roots")
struct AppleRootsTests {
    func fingerprint(_ der: [UInt8]) -> String {
        SHA256.hash(der).map { Hex.string([$0]).uppercased() }.joined(separator: ":")
    }

    @Test("App Attestation Root CA has Apple's published SHA-256 fingerprint")
    func appAttestationRoot() throws {
        #expect(AppleRoots.appAttestationRootDER.count == 1)
        #expect(fingerprint(AppleRoots.appAttestationRootDER[0])
            == "1C:B9:82:3B:A2:8B:A6:AD:2D:33:A0:06:94:1D:E2:AE:4F:51:3E:F1:D4:E8:31:B9:F7:E0:FA:7B:62:42:C9:32")
        let root = try Certificate(derEncoded: AppleRoots.appAttestationRootDER[0])
        #expect(root.subject.contains("CN=Apple App Attestation Root CA"))
        #expect(root.publicKey?.curveName == "secp384r1")
        #expect(RFC3339.format(unixSeconds: root.notAfter) == "2045-03-15T00:00:00Z")
    }

    @Test("Apple Root CA - G3 has Apple's published SHA-256 fingerprint")
    func rootCAG3() throws {
        #expect(AppleRoots.rootCAG3DER.count == 1)
        #expect(fingerprint(AppleRoots.rootCAG3DER[0])
            == "63:34:3A:BF:B8:9A:6A:03:EB:B5:7E:9B:3F:5F:A7:BE:7C:4F:5C:75:6F:30:17:B3:A8:C4:88:C3:65:3E:91:79")
        let root = try Certificate(derEncoded: AppleRoots.rootCAG3DER[0])
        #expect(root.subject.contains("CN=Apple Root CA - G3"))
    }
}
