import AppAttestSimulator
import Crypto
import Testing

@Suite("Simulated keys")
struct SimulatedKeyTests {
    @Test("a key's identifier is SHA-256 of its point, in 44 characters of standard base64")
    func keyID() {
        let key = Fixtures.device().generateKey()
        #expect(key.keyID == SHA256.hash(key.publicKey))
        #expect(key.keyIDBase64.count == 44)
        #expect(key.keyIDBase64.hasSuffix("="))
    }

    @Test("a key's PEM holds its SubjectPublicKeyInfo, which ends with its point")
    func pem() throws {
        let key = Fixtures.device().generateKey()
        #expect(key.publicKeyPEM.hasPrefix("-----BEGIN PUBLIC KEY-----\n"))
        #expect(key.publicKeyPEM.hasSuffix("\n-----END PUBLIC KEY-----\n"))
        #expect(key.subjectPublicKeyInfoDER.count == 91)
        #expect(Array(key.subjectPublicKeyInfoDER.suffix(65)) == key.publicKey)
        #expect(OpenSSLCheck.pemPublicKeyDER(key.publicKeyPEM) == key.subjectPublicKeyInfoDER)
    }

    @Test("assertions made concurrently with one key get distinct counters")
    func concurrentCounters() async {
        let device = Fixtures.device()
        let key = device.generateKey()
        let counters = await withTaskGroup(of: UInt32.self) { group in
            for _ in 0..<64 {
                group.addTask { device.assertion(key, clientDataHash: [1]).counter }
            }
            var all: [UInt32] = []
            for await counter in group { all.append(counter) }
            return all
        }
        #expect(Set(counters) == Set(1...64))
        #expect(key.counter == 64)
    }
}
