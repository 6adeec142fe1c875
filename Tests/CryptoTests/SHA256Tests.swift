import Crypto
import Foundation
import Testing

@Suite("SHA-256 and HMAC")
struct SHA256Tests {
    @Test("hashes the empty string to the FIPS 180-2 value")
    func emptyDigest() {
        let hex = SHA256.hash([UInt8]()).map { String(format: "%02x", $0) }.joined()
        #expect(hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test("hashes a two-block message to the FIPS 180-2 value")
    func twoBlockDigest() {
        let message = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        let hex = SHA256.hash(message).map { String(format: "%02x", $0) }.joined()
        #expect(hex == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test("hashes two parts exactly as their concatenation, also across block boundaries")
    func twoParts() {
        let a = Array("authData".utf8), b = Array("clientDataHash".utf8)
        #expect(SHA256.hash(a, b) == SHA256.hash(a + b))
        let long = (0..<137).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        for split in [0, 1, 63, 64, 65, 136, 137] {
            #expect(SHA256.hash(long[..<split], long[split...]) == SHA256.hash(long))
        }
    }

    @Test("computes RFC 4231 test case 2")
    func hmacVector() {
        let tag = HMACSHA256.authenticate(Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8))
        let hex = tag.map { String(format: "%02x", $0) }.joined()
        #expect(hex == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test("compares in constant time and still tells different lengths apart")
    func constantTime() {
        #expect(ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2, 3] as [UInt8]))
        #expect(!ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2, 4] as [UInt8]))
        #expect(!ConstantTime.equals([1, 2] as [UInt8], [1, 2, 3] as [UInt8]))
    }
}

@Suite("Prepared HMAC keys")
struct HMACKeyTests {
    @Test("give the same tags as the one-shot HMAC, for short, block-sized and long keys and messages",
          arguments: [0, 1, 32, 64, 65, 200])
    func matchesOneShot(keyLength: Int) {
        let key = (0..<keyLength).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        let prepared = HMACKey(key)
        for messageLength in [0, 1, 55, 64, 100, 1000] {
            let message = (0..<messageLength).map { UInt8(truncatingIfNeeded: $0 &* 13) }
            #expect(prepared.authenticate(message) == HMACSHA256.authenticate(message, key: key))
        }
    }

    @Test("computes RFC 4231 test case 2")
    func rfcVector() {
        let tag = HMACKey(Array("Jefe".utf8)).authenticate(Array("what do ya want for nothing?".utf8))
        #expect(tag.map { String(format: "%02x", $0) }.joined() == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }
}
