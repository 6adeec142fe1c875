import Crypto
import Foundation
import Testing

@Suite("Base64url")
struct Base64URLTests {
    @Test("encodes without padding in the URL-safe alphabet and decodes back")
    func roundTrip() {
        #expect(Base64URL.encode([UInt8]()) == "")
        #expect(Base64URL.encode([0xFB]) == "-w")
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.encode(Array("any carnal pleas".utf8)) == "YW55IGNhcm5hbCBwbGVhcw")
        for count in 0..<40 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 200) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
    }

    @Test("appends after what the buffer holds, as Foundation's base64 with the URL-safe alphabet and no padding")
    func appendsAfterExistingBytes() {
        for count in 0..<70 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 91 &+ 7) }
            var output = Array("header.".utf8)
            Base64URL.append(bytes, to: &output)
            let expected = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(String(decoding: output, as: UTF8.self) == "header." + expected)
        }
    }

    @Test("refuses padding, the standard alphabet, impossible lengths and non-zero trailing bits")
    func strict() {
        #expect(Base64URL.decode("-w==") == nil)
        #expect(Base64URL.decode("+w") == nil)
        #expect(Base64URL.decode("/w") == nil)
        #expect(Base64URL.decode("abcde") == nil)
        #expect(Base64URL.decode("-x") == nil)
        #expect(Base64URL.decode("-w") == [0xFB])
    }
}
