import AppAttestSimulator
import Crypto
import Testing

@Suite("Simulated assertions are shaped like Apple's")
struct AssertionStructureTests {
    let clientDataHash = SHA256.hash(Array("request body".utf8))

    @Test("the object is {signature, authenticatorData}; authData is rpIdHash, flags 0x40 and the counter")
    func envelope() throws {
        let device = Fixtures.device()
        let key = device.generateKey()
        let item = try #require(CBORItem.decode(device.assert(key, clientDataHash: clientDataHash)))
        #expect(item.keys == ["signature", "authenticatorData"])
        let data = try #require(item["authenticatorData"]?.bytes)
        #expect(data.count == 37)
        #expect(Array(data[0..<32]) == device.rpIDHash)
        #expect(data[32] == 0x40)
        #expect(Array(data[33..<37]) == [0, 0, 0, 1])
        #expect(item["signature"]?.bytes?.first == 0x30)
    }

    @Test("the signature is ECDSA P-256 with SHA-256 over the nonce as the message, checked by OpenSSL")
    func signatureVerifies() {
        let device = Fixtures.device()
        let key = device.generateKey()
        let parts = device.assertion(key, clientDataHash: clientDataHash)
        let nonce = SHA256.hash(parts.authenticatorData + clientDataHash)
        #expect(OpenSSLCheck.verifyP256(signature: parts.signature, message: nonce, point: key.publicKey))
        #expect(!OpenSSLCheck.verifyP256(signature: parts.signature, message: clientDataHash, point: key.publicKey))
        #expect(!OpenSSLCheck.verifyP256(signature: parts.signature, message: nonce, point: device.generateKey().publicKey))
    }

    @Test("counters increase by one per assertion, and an explicit counter resets the sequence")
    func counters() {
        let device = Fixtures.device()
        let key = device.generateKey()
        #expect(key.counter == 0)
        #expect(device.assertion(key, clientDataHash: clientDataHash).counter == 1)
        #expect(device.assertion(key, clientDataHash: clientDataHash).counter == 2)
        #expect(device.assertion(key, clientDataHash: clientDataHash, options: .init { $0.counter = 10 }).counter == 10)
        #expect(device.assertion(key, clientDataHash: clientDataHash).counter == 11)
        #expect(key.counter == 11)
    }

    @Test("the iOS 27 extensions map follows the 37 bytes, and the signature covers it")
    func extensionsMap() throws {
        let device = Fixtures.device(extensions: .appleGuideSample)
        let key = device.generateKey()
        let parts = device.assertion(key, clientDataHash: clientDataHash)
        #expect(parts.authenticatorData.count == 37 + SimulatedExtensions.appleGuideSample.encoded.count)
        #expect(CBORItem.decode(Array(parts.authenticatorData[37...]))?.keys.count == 2)
        let nonce = SHA256.hash(parts.authenticatorData + clientDataHash)
        #expect(OpenSSLCheck.verifyP256(signature: parts.signature, message: nonce, point: key.publicKey))
    }

    @Test("tampering after signing leaves a signature that no longer verifies")
    func tampering() {
        let device = Fixtures.device()
        let key = device.generateKey()
        let parts = device.assertion(key, clientDataHash: clientDataHash, options: .init {
            $0.authenticatorDataAfterSigning = { data in data.dropLast() + [data.last! ^ 0x01] }
        })
        let nonce = SHA256.hash(parts.authenticatorData + clientDataHash)
        #expect(!OpenSSLCheck.verifyP256(signature: parts.signature, message: nonce, point: key.publicKey))
    }
}
