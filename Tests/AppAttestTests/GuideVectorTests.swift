import AppAttest
import Crypto
import Testing

@Suite("Apple's guide vector")
struct GuideVectorTests {
    let vector = GuideVector.shared

    @Test("verifies at its time with the raw challenge as clientDataHash")
    func verifiesAtItsTime() throws {
        let verifier = AttestationVerifier()
        let result = try verifier.verify(
            attestationObject: vector.attestation, keyID: vector.keyID, clientDataHash: vector.clientDataHash,
            appIDs: [vector.appID], environment: .production, at: vector.verifyAt)
        #expect(result.environment == .production)
        #expect(result.appID == vector.appID)
        #expect(result.publicKey.count == 65 && result.publicKey[0] == 0x04)
        #expect(SHA256.hash(result.publicKey) == vector.keyID)
        #expect(result.extensions.validationCategory == 1)
        #expect(result.extensions.bundleVersion == "1")
        #expect(result.counter == 0)
    }

    @Test("carries a receipt that verifies to Apple Root CA - G3 for the same key and client hash")
    func receiptVerifies() throws {
        let result = try AttestationVerifier().verify(
            attestationObject: vector.attestation, keyID: vector.keyID, clientDataHash: vector.clientDataHash,
            appIDs: [vector.appID], environment: .production, at: vector.verifyAt)
        guard case .verified(let receipt) = result.receipt else {
            Issue.record("receipt outcome was \(result.receipt)")
            return
        }
        #expect(receipt.appID == "1234567890.com.example.myapp")
        #expect(receipt.type == "ATTEST")
        #expect(receipt.clientHash == vector.clientDataHash)
        #expect(receipt.environment == "production")
        #expect(abs(receipt.creationTime - vector.verifyAt) < 86_400)
    }

    @Test("fails as chainInvalid(expired) one second after the leaf's end")
    func expiresWithTheLeaf() {
        let error = #expect(throws: AppAttestError.self) {
            try AttestationVerifier().verify(
                attestationObject: vector.attestation, keyID: vector.keyID, clientDataHash: vector.clientDataHash,
                appIDs: [vector.appID], environment: .production, at: vector.leafNotAfter + 1)
        }
        #expect(error?.reason == .chainInvalid("expired"))
        #expect(error?.reason.name == "chainInvalid(expired)")
    }

    @Test("still verifies one second before the leaf's end (OpenSSL treats notAfter as exclusive)")
    func lastSecond() throws {
        _ = try AttestationVerifier().verify(
            attestationObject: vector.attestation, keyID: vector.keyID, clientDataHash: vector.clientDataHash,
            appIDs: [vector.appID], environment: .production, at: vector.leafNotAfter - 1)
    }

    @Test("fails nonceMismatch when SHA256(challenge) is passed instead of the raw challenge")
    func hashedChallengeIsNotTheNonce() {
        let error = #expect(throws: AppAttestError.self) {
            try AttestationVerifier().verify(
                attestationObject: vector.attestation, keyID: vector.keyID,
                clientDataHash: SHA256.hash(vector.clientDataHash), appIDs: [vector.appID], environment: .production,
                at: vector.verifyAt)
        }
        #expect(error?.reason == .nonceMismatch)
    }

    @Test("is accepted by a development server, which takes production keys too")
    func developmentServerAcceptsProductionKey() throws {
        let result = try AttestationVerifier().verify(
            attestationObject: vector.attestation, keyID: vector.keyID, clientDataHash: vector.clientDataHash,
            appIDs: [vector.appID], environment: .development, at: vector.verifyAt)
        #expect(result.environment == .production)
    }

    @Test("matches any of several configured App IDs and fails appIdMismatch for others")
    func appIDs() throws {
        let clip = AppID("1234567890.com.example.myapp.Clip")!
        let result = try AttestationVerifier().verify(
            attestationObject: vector.attestation, keyID: vector.keyID, clientDataHash: vector.clientDataHash,
            appIDs: [clip, vector.appID], environment: .production, at: vector.verifyAt)
        #expect(result.appID == vector.appID)
        let error = #expect(throws: AppAttestError.self) {
            try AttestationVerifier().verify(
                attestationObject: vector.attestation, keyID: vector.keyID, clientDataHash: vector.clientDataHash,
                appIDs: [clip], environment: .production, at: vector.verifyAt)
        }
        #expect(error?.reason == .appIdMismatch)
    }

    @Test("fails keyIdMismatch for another key's id")
    func otherKeyID() {
        var keyID = vector.keyID
        keyID[0] ^= 1
        let error = #expect(throws: AppAttestError.self) {
            try AttestationVerifier().verify(
                attestationObject: vector.attestation, keyID: keyID, clientDataHash: vector.clientDataHash,
                appIDs: [vector.appID], environment: .production, at: vector.verifyAt)
        }
        #expect(error?.reason == .keyIdMismatch)
    }

    @Test("fails validationCategoryNotAllowed when the policy excludes category 1 in production")
    func policy() {
        let verifier = AttestationVerifier(policy: AttestationPolicy(allowedValidationCategories: [.production: [2, 4]]))
        let error = #expect(throws: AppAttestError.self) {
            try verifier.verify(
                attestationObject: vector.attestation, keyID: vector.keyID, clientDataHash: vector.clientDataHash,
                appIDs: [vector.appID], environment: .production, at: vector.verifyAt)
        }
        #expect(error?.reason == .validationCategoryNotAllowed)
    }

    @Test("fails chainInvalid(untrusted) against another root")
    func otherRoot() {
        let verifier = AttestationVerifier(trustAnchorsDER: AppleRoots.rootCAG3DER)
        let error = #expect(throws: AppAttestError.self) {
            try verifier.verify(
                attestationObject: vector.attestation, keyID: vector.keyID, clientDataHash: vector.clientDataHash,
                appIDs: [vector.appID], environment: .production, at: vector.verifyAt)
        }
        #expect(error?.reason == .chainInvalid("untrusted"))
    }
}
