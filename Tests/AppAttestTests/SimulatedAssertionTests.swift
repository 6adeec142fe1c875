import AppAttest
import AppAttestSimulator
import Crypto
import Testing

/// Assertions from a simulated device, verified with the attested key and the counter a server would have stored.
@Suite("Simulated assertions")
struct SimulatedAssertionTests {
    let device = SimulatedFixtures.device()
    let verifier = AssertionVerifier()
    let clientData = Array("{\"artifact\":\"…\",\"challenge\":\"…\"}".utf8)

    func verify(
        _ assertion: [UInt8], key: SimulatedKey, clientData: [UInt8]? = nil, appIDs: [AppID] = [SimulatedFixtures.appID],
        previousCounter: UInt32
    ) throws(AppAttestError) -> VerifiedAssertion {
        try verifier.verify(
            assertion: assertion, publicKey: key.publicKey, clientDataHash: SHA256.hash(clientData ?? self.clientData),
            appIDs: appIDs, previousCounter: previousCounter)
    }

    @Test("a valid assertion verifies and returns its counter, and the next one verifies above it")
    func valid() throws {
        let key = device.generateKey()
        let first = try verify(device.assert(key, clientDataHash: SHA256.hash(clientData)), key: key, previousCounter: 0)
        #expect(first.counter == 1)
        #expect(first.appID == SimulatedFixtures.appID)
        let second = try verify(device.assert(key, clientDataHash: SHA256.hash(clientData)), key: key, previousCounter: first.counter)
        #expect(second.counter == 2)
    }

    @Test("refuses an assertion whose counter equals the stored one as counterNotIncreasing")
    func counterEqual() {
        let key = device.generateKey()
        let assertion = device.assert(key, clientDataHash: SHA256.hash(clientData), options: .init { $0.counter = 5 })
        #expect(throws: AppAttestError(.counterNotIncreasing)) { try verify(assertion, key: key, previousCounter: 5) }
    }

    @Test("refuses an assertion whose counter is below the stored one as counterNotIncreasing")
    func counterLower() {
        let key = device.generateKey()
        let assertion = device.assert(key, clientDataHash: SHA256.hash(clientData), options: .init { $0.counter = 4 })
        #expect(throws: AppAttestError(.counterNotIncreasing)) { try verify(assertion, key: key, previousCounter: 5) }
    }

    @Test("refuses an assertion for another App ID as appIdMismatch")
    func wrongAppID() {
        let key = device.generateKey()
        let assertion = device.assert(key, clientDataHash: SHA256.hash(clientData))
        #expect(throws: AppAttestError(.appIdMismatch)) {
            try verify(assertion, key: key, appIDs: [SimulatedFixtures.otherAppID], previousCounter: 0)
        }
        let signedForOther = device.assert(key, clientDataHash: SHA256.hash(clientData), options: .init {
            $0.rpIDHash = SimulatedFixtures.otherAppID.rpIDHash
        })
        #expect(throws: AppAttestError(.appIdMismatch)) { try verify(signedForOther, key: key, previousCounter: 0) }
    }

    @Test("refuses an assertion checked against other client data as badSignature")
    func wrongClientData() {
        let key = device.generateKey()
        let assertion = device.assert(key, clientDataHash: SHA256.hash(clientData))
        #expect(throws: AppAttestError(.badSignature)) {
            try verify(assertion, key: key, clientData: Array("another request".utf8), previousCounter: 0)
        }
    }

    @Test("refuses an assertion whose authenticatorData was altered after signing as badSignature")
    func tamperedAuthenticatorData() {
        let key = device.generateKey()
        let raisedCounter = device.assert(key, clientDataHash: SHA256.hash(clientData), options: .init {
            $0.authenticatorDataAfterSigning = { data in Array(data.prefix(33)) + [0x7F, 0xFF, 0xFF, 0xFF] }
        })
        #expect(throws: AppAttestError(.badSignature)) { try verify(raisedCounter, key: key, previousCounter: 0) }
    }

    @Test("refuses an assertion signed by another key as badSignature")
    func otherKey() {
        let key = device.generateKey()
        let assertion = device.assert(key, clientDataHash: SHA256.hash(clientData), options: .init {
            $0.signingKey = device.generateKey()
        })
        #expect(throws: AppAttestError(.badSignature)) { try verify(assertion, key: key, previousCounter: 0) }
    }

    @Test("accepts the iOS 27 extensions map after the 37 bytes, with the AT flag set and ED clear")
    func iOS27Extensions() throws {
        let modern = SimulatedFixtures.device(extensions: .appleGuideSample)
        let key = modern.generateKey()
        let parts = modern.assertion(key, clientDataHash: SHA256.hash(clientData))
        #expect(parts.authenticatorData.count > 37)
        #expect(parts.authenticatorData[32] == 0x40)
        let verified = try verify(parts.object, key: key, previousCounter: 0)
        #expect(verified.counter == 1)
        #expect(verified.extensions.validationCategory == 1)
        #expect(verified.extensions.bundleVersion == "1")
    }

    @Test("refuses bytes after the assertion object as malformed(assertion)")
    func trailingBytes() {
        let key = device.generateKey()
        let assertion = device.assert(key, clientDataHash: SHA256.hash(clientData), options: .init { $0.trailingBytes = [0xA0] })
        #expect(throws: AppAttestError(.malformed("assertion"))) { try verify(assertion, key: key, previousCounter: 0) }
    }

    @Test("refuses a stored public key that is not a P-256 point as malformed(publicKey)")
    func malformedPublicKey() {
        let key = device.generateKey()
        let assertion = device.assert(key, clientDataHash: SHA256.hash(clientData))
        #expect(throws: AppAttestError(.malformed("publicKey"))) {
            try verifier.verify(
                assertion: assertion, publicKey: Array(key.publicKey.prefix(33)), clientDataHash: SHA256.hash(clientData),
                appIDs: [SimulatedFixtures.appID], previousCounter: 0)
        }
    }
}
