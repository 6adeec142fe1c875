import Crypto
import Foundation
import Testing

@Suite("AES-256-GCM")
struct AESGCMTests {
    let key = Array(repeating: UInt8(0), count: 32)
    let nonce = Array(repeating: UInt8(0), count: 12)

    @Test("matches the zero-key, zero-nonce test vector (McGrew–Viega test case 14)")
    func knownAnswer() throws {
        let sealed = try AESGCM.seal(Array(repeating: UInt8(0), count: 16), key: key, nonce: nonce, authenticating: [UInt8]())
        let hex = sealed.map { String(format: "%02x", $0) }.joined()
        #expect(hex == "cea7403d4d606b6e074ec5d3baf39d18" + "d0d1c8a799996bf0265b98b5d48ab919")
    }

    @Test("opens what it sealed and refuses other additional data")
    func roundTrip() throws {
        let sealed = try AESGCM.seal(Array("secret".utf8), key: key, nonce: nonce, authenticating: Array("aad".utf8))
        #expect(AESGCM.open(sealed, key: key, nonce: nonce, authenticating: Array("aad".utf8)) == Array("secret".utf8))
        #expect(AESGCM.open(sealed, key: key, nonce: nonce, authenticating: Array("aae".utf8)) == nil)
        #expect(AESGCM.open(Array(sealed.prefix(10)), key: key, nonce: nonce, authenticating: Array("aad".utf8)) == nil)
    }

    @Test("refuses a key or a nonce of the wrong size with an error instead of stopping the process")
    func wrongSizes() {
        #expect(throws: CryptoError(.internalFailure, "")) {
            try AESGCM.seal([1, 2, 3], key: Array(repeating: UInt8(0), count: 16), nonce: nonce, authenticating: [UInt8]())
        }
        #expect(throws: CryptoError(.internalFailure, "")) {
            try AESGCM.seal([1, 2, 3], key: key, nonce: Array(repeating: UInt8(0), count: 8), authenticating: [UInt8]())
        }
    }
}
