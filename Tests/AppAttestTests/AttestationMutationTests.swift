import AppAttest
import AppAttestSimulator
import Crypto
import Testing

/// For every rule, a valid simulated attestation mutated to break that rule alone fails with exactly its reason.
/// The simulator applies each mutation before it computes the nonce and signs the certificate, so nothing else
/// about the object is wrong.
@Suite("Attestation rules, one mutation each")
struct AttestationMutationTests {
    // MARK: The valid baseline

    @Test("a valid simulated attestation verifies, with its key, environment and a verified receipt")
    func validAttestation() throws {
        let test = SimulatedAttestationCase()
        let verified = try test.verify()
        #expect(verified.publicKey == test.key.publicKey)
        #expect(verified.keyID == test.key.keyID)
        #expect(verified.environment == .production)
        #expect(verified.appID == SimulatedFixtures.appID)
        #expect(verified.counter == 0)
        guard case .verified(let receipt) = verified.receipt else {
            Issue.record("the receipt was not verified: \(verified.receipt)")
            return
        }
        #expect(receipt.type == "ATTEST")
        #expect(receipt.clientHash == test.clientDataHash)
    }

    @Test("an iOS 27 attestation verifies and exposes its validation category and bundle version")
    func iOS27Extensions() throws {
        let verified = try SimulatedAttestationCase(extensions: .appleGuideSample).verify()
        #expect(verified.extensions.validationCategory == 1)
        #expect(verified.extensions.bundleVersion == "1")
    }

    @Test("an App Clip's attestation verifies against the second of the app's configured App IDs")
    func appClip() throws {
        let test = SimulatedAttestationCase(appID: SimulatedFixtures.clipAppIDString)
        let verified = try test.verify(appIDs: [SimulatedFixtures.appID, SimulatedFixtures.clipAppID])
        #expect(verified.appID == SimulatedFixtures.clipAppID)
    }

    @Test("a development server accepts keys from both environments")
    func developmentServer() throws {
        #expect(try SimulatedAttestationCase(.development).verify(environment: .development).environment == .development)
        #expect(try SimulatedAttestationCase(.production).verify(environment: .development).environment == .production)
    }

    @Test("the second attestation through the same intermediate uses the cached intermediate")
    func cacheWarms() throws {
        let verifier = SimulatedFixtures.verifier()
        #expect(try SimulatedAttestationCase().verify(verifier: verifier).usedCachedIntermediate == false)
        #expect(try SimulatedAttestationCase().verify(verifier: verifier).usedCachedIntermediate == true)
    }

    // MARK: Envelope

    @Test("refuses a format other than apple-appattest as unsupportedFormat")
    func format() {
        let test = SimulatedAttestationCase(options: .init { $0.format = "packed" })
        #expect(throws: AppAttestError(.unsupportedFormat)) { try test.verify() }
    }

    @Test("refuses bytes after the attestation object as malformed(attestationObject)")
    func trailingBytes() {
        let test = SimulatedAttestationCase(options: .init { $0.trailingBytes = [0x00] })
        #expect(throws: AppAttestError(.malformed("attestationObject"))) { try test.verify() }
    }

    @Test("refuses a keyId that is not 32 bytes as malformed(keyId)")
    func shortKeyID() {
        let test = SimulatedAttestationCase()
        #expect(throws: AppAttestError(.malformed("keyId"))) { try test.verify(keyID: Array(test.key.keyID.prefix(16))) }
    }

    // MARK: Step 1, the certificate chain

    @Test("refuses a chain to a root that is not pinned as chainInvalid(untrusted)")
    func untrustedRoot() {
        let test = SimulatedAttestationCase(ca: SimulatedFixtures.untrustedCA)
        #expect(throws: AppAttestError(.chainInvalid("untrusted"))) { try test.verify() }
    }

    @Test("refuses a leaf signed by another CA's intermediate as chainInvalid(untrusted)")
    func foreignIssuer() {
        let test = SimulatedAttestationCase(options: .init { $0.issuingCA = SimulatedFixtures.untrustedCA })
        #expect(throws: AppAttestError(.chainInvalid("untrusted"))) { try test.verify() }
    }

    @Test("refuses an x5c without its intermediate as chainInvalid(untrusted)")
    func missingIntermediate() {
        let test = SimulatedAttestationCase(options: .init { $0.x5c = { Array($0.prefix(1)) } })
        #expect(throws: AppAttestError(.chainInvalid("untrusted"))) { try test.verify() }
    }

    @Test("refuses an x5c whose first element is not a certificate as malformed(attStmt.x5c)")
    func leafNotACertificate() {
        let test = SimulatedAttestationCase(options: .init { $0.x5c = { [[0x30, 0x03, 0x02, 0x01, 0x00], $0[1]] } })
        #expect(throws: AppAttestError(.malformed("attStmt.x5c"))) { try test.verify() }
    }

    @Test("refuses a leaf whose signature was altered as chainInvalid(badSignature)")
    func alteredLeafSignature() {
        let test = SimulatedAttestationCase(options: .init {
            $0.x5c = { chain in [Array(chain[0].dropLast()) + [chain[0].last! ^ 0x01], chain[1]] }
        })
        #expect(throws: AppAttestError(.chainInvalid("badSignature"))) { try test.verify() }
    }

    @Test("refuses an attestation verified after its leaf's 3 days as chainInvalid(expired)")
    func expiredLeaf() throws {
        let test = SimulatedAttestationCase()
        try test.verify(at: SimulatedFixtures.time + 2 * SimulatedFixtures.day - 1)
        #expect(throws: AppAttestError(.chainInvalid("expired"))) {
            try test.verify(at: SimulatedFixtures.time + 2 * SimulatedFixtures.day + 1)
        }
    }

    @Test("refuses a leaf that is not valid yet as chainInvalid(notYetValid)")
    func leafNotYetValid() {
        let test = SimulatedAttestationCase(options: .init { $0.certificateNotBefore = SimulatedFixtures.time + 60 })
        #expect(throws: AppAttestError(.chainInvalid("notYetValid"))) { try test.verify() }
    }

    @Test("refuses a chain whose intermediate expired as chainInvalid(expired), even when the cache holds it")
    func expiredIntermediate() throws {
        let shortLived = SimulatedAppleCA(name: "Short", intermediateValidUntil: SimulatedFixtures.time + SimulatedFixtures.day)
        let verifier = AttestationVerifier(
            trustAnchorsDER: [shortLived.rootDER],
            receiptVerifier: ReceiptVerifier(trustAnchorsDER: [SimulatedFixtures.receiptCA.rootDER]))
        try SimulatedAttestationCase(ca: shortLived).verify(verifier: verifier)
        let later = SimulatedAttestationCase(
            ca: shortLived, options: .init { $0.issuedAt = SimulatedFixtures.time + 2 * SimulatedFixtures.day })
        #expect(throws: AppAttestError(.chainInvalid("expired"))) {
            try later.verify(at: SimulatedFixtures.time + 2 * SimulatedFixtures.day, verifier: verifier)
        }
    }

    // MARK: Steps 2-4, the nonce

    @Test("refuses a certificate nonce that is not SHA256(authData || clientDataHash) as nonceMismatch")
    func certificateNonce() {
        let test = SimulatedAttestationCase(options: .init { $0.certificateNonce = .value(SecureRandom.bytes(count: 32)) })
        #expect(throws: AppAttestError(.nonceMismatch)) { try test.verify() }
    }

    @Test("refuses an attestation checked against another clientDataHash as nonceMismatch")
    func otherClientDataHash() {
        let test = SimulatedAttestationCase()
        #expect(throws: AppAttestError(.nonceMismatch)) { try test.verify(clientDataHash: SHA256.hash([1, 2, 3])) }
    }

    @Test("refuses a certificate without the nonce extension as malformed(credCert.nonce)")
    func missingNonceExtension() {
        let test = SimulatedAttestationCase(options: .init { $0.certificateNonce = .omitted })
        #expect(throws: AppAttestError(.malformed("credCert.nonce"))) { try test.verify() }
    }

    @Test("refuses a nonce extension with another structure as malformed(credCert.nonce)")
    func misshapenNonceExtension() {
        let test = SimulatedAttestationCase(options: .init {
            $0.certificateNonce = .rawExtensionValue([0x04, 0x20] + SecureRandom.bytes(count: 32))
        })
        #expect(throws: AppAttestError(.malformed("credCert.nonce"))) { try test.verify() }
    }

    // MARK: Step 5, keyId

    @Test("refuses a certificate for another key as keyIdMismatch")
    func certifiedOtherKey() {
        let other = SimulatedFixtures.device().generateKey()
        let test = SimulatedAttestationCase(options: .init { $0.certifiedKey = other })
        #expect(throws: AppAttestError(.keyIdMismatch)) { try test.verify() }
    }

    @Test("refuses an attestation presented with another keyId as keyIdMismatch")
    func presentedOtherKeyID() {
        let test = SimulatedAttestationCase()
        #expect(throws: AppAttestError(.keyIdMismatch)) { try test.verify(keyID: SHA256.hash([9])) }
    }

    // MARK: Step 6, rpIdHash

    @Test("refuses an rpIdHash of another App ID as appIdMismatch")
    func rpIDHash() {
        let test = SimulatedAttestationCase(options: .init { $0.rpIDHash = SimulatedFixtures.otherAppID.rpIDHash })
        #expect(throws: AppAttestError(.appIdMismatch)) { try test.verify() }
    }

    @Test("refuses an attestation for an App ID the server does not configure as appIdMismatch")
    func unconfiguredAppID() {
        let test = SimulatedAttestationCase()
        #expect(throws: AppAttestError(.appIdMismatch)) { try test.verify(appIDs: [SimulatedFixtures.otherAppID]) }
    }

    @Test("trusts the configured App ID, not the one the certificate claims")
    func certificateAppIDIgnored() throws {
        let test = SimulatedAttestationCase(options: .init { $0.certificateAppID = "OTHERTEAM1.com.example.other" })
        #expect(try test.verify().appID == SimulatedFixtures.appID)
    }

    // MARK: Step 7, counter

    @Test("refuses a counter other than 0 as counterNotZero")
    func counter() {
        let test = SimulatedAttestationCase(options: .init { $0.counter = 1 })
        #expect(throws: AppAttestError(.counterNotZero)) { try test.verify() }
    }

    // MARK: Step 8, aaguid

    @Test("refuses a development key on a production server as wrongEnvironment")
    func developmentKeyInProduction() {
        let test = SimulatedAttestationCase(.development)
        #expect(throws: AppAttestError(.wrongEnvironment)) { try test.verify(environment: .production) }
    }

    @Test("refuses an aaguid of neither environment as wrongEnvironment, even on a development server")
    func unknownAaguid() {
        let trimmed = SimulatedAttestationCase(options: .init { $0.aaguid = Array("appattest".utf8) + [0x20, 0, 0, 0, 0, 0, 0] })
        #expect(throws: AppAttestError(.wrongEnvironment)) { try trimmed.verify(environment: .development) }
    }

    // MARK: Step 9, credentialId

    @Test("refuses a credentialId other than the keyId as credentialIdMismatch")
    func credentialID() {
        let test = SimulatedAttestationCase(options: .init { $0.credentialID = SecureRandom.bytes(count: 32) })
        #expect(throws: AppAttestError(.credentialIdMismatch)) { try test.verify() }
    }

    // MARK: The COSE key

    @Test("refuses a COSE key other than the certificate's as publicKeyMismatch")
    func coseKey() {
        let other = SimulatedFixtures.device().generateKey()
        let test = SimulatedAttestationCase(options: .init { $0.credentialPublicKey = other.coseKey })
        #expect(throws: AppAttestError(.publicKeyMismatch)) { try test.verify() }
    }

    // MARK: Step 10, iOS 27 extensions

    @Test("refuses a validation category the policy does not allow as validationCategoryNotAllowed")
    func validationCategory() throws {
        let policy = AttestationPolicy(allowedValidationCategories: [.production: [2, 4], .development: [3]])
        let verifier = SimulatedFixtures.verifier(policy: policy)
        try SimulatedAttestationCase(extensions: .init(validationCategory: 4, bundleVersion: "7")).verify(verifier: verifier)
        let development = SimulatedAttestationCase(extensions: .init(validationCategory: 3, bundleVersion: "7"))
        #expect(throws: AppAttestError(.validationCategoryNotAllowed)) { try development.verify(verifier: verifier) }
    }

    @Test("refuses a validation category that is not a 4-byte UInt32 as malformed(authData.extensions)")
    func validationCategoryShape() {
        let odd = SimulatedExtensions(additionalEntries: [(.text("apple_validation_category_01"), .bytes([1, 0]))])
        let test = SimulatedAttestationCase(extensions: odd)
        #expect(throws: AppAttestError(.malformed("authData.extensions"))) { try test.verify() }
    }
}
