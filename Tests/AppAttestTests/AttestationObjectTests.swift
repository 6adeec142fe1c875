import AppAttest
import Testing

@Suite("Attestation and assertion envelopes")
struct AttestationObjectTests {
    typealias B = CBORBuilder

    func envelope(fmt: String = "apple-appattest", x5c: [UInt8]? = nil, receipt: [UInt8]? = nil, authData: [UInt8]? = nil) -> [UInt8] {
        var statement: [([UInt8], [UInt8])] = [(B.text("x5c"), x5c ?? B.array([B.bytes([0x30, 0x00])]))]
        if let receipt { statement.append((B.text("receipt"), receipt)) }
        var entries: [([UInt8], [UInt8])] = [(B.text("fmt"), B.text(fmt)), (B.text("attStmt"), B.map(statement))]
        if let authData { entries.append((B.text("authData"), authData)) }
        return B.map(entries)
    }

    @Test("refuses another attestation format as unsupportedFormat")
    func format() {
        #expect(throws: AppAttestError(.unsupportedFormat)) { try AttestationObject(envelope(fmt: "packed")) }
    }

    @Test("names the part that is malformed")
    func malformedParts() {
        #expect(throws: AppAttestError(.malformed("attestationObject"))) { try AttestationObject([0xa0, 0x00]) }
        #expect(throws: AppAttestError(.malformed("attStmt.x5c"))) { try AttestationObject(envelope(x5c: B.array([]))) }
        #expect(throws: AppAttestError(.malformed("attStmt.x5c"))) { try AttestationObject(envelope(x5c: B.array([B.text("x")]))) }
        #expect(throws: AppAttestError(.malformed("attStmt.receipt"))) { try AttestationObject(envelope(receipt: B.text("r"))) }
        #expect(throws: AppAttestError(.malformed("authData"))) { try AttestationObject(envelope()) }
    }

    @Test("reports a missing and an empty receipt apart")
    func receipts() throws {
        let authData = try AttestationObject(GuideVector.shared.attestation).authenticatorData.rawValue
        #expect(try AttestationObject(envelope(authData: B.bytes(authData))).receipt == nil)
        #expect(try AttestationObject(envelope(receipt: B.bytes([]), authData: B.bytes(authData))).receipt == [])
    }

    @Test("decodes an assertion envelope with iOS 27 extensions, and refuses one without a signature")
    func assertionEnvelope() throws {
        let appID = AppID("1234567890.com.example.myapp")!
        let authData = appID.rpIDHash + [0x40, 0, 0, 0, 1] + B.map([(B.text("apple_bundle_version_01"), B.text("7"))])
        let object = try AssertionObject(B.map([(B.text("signature"), B.bytes([0x30, 0x00])), (B.text("authenticatorData"), B.bytes(authData))]))
        #expect(object.authenticatorData.signCount == 1)
        #expect(object.authenticatorData.extensions.bundleVersion == "7")
        #expect(throws: AppAttestError(.malformed("assertion"))) {
            try AssertionObject(B.map([(B.text("authenticatorData"), B.bytes(authData))]))
        }
    }

    @Test("refuses an assertion signed by another key as badSignature before looking at anything else")
    func assertionBadSignature() throws {
        let vector = GuideVector.shared
        let appID = vector.appID
        let authData = appID.rpIDHash + [0x40, 0, 0, 0, 1]
        // A well-formed DER ECDSA signature that was not made over this nonce.
        let signature: [UInt8] = [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01]
        let assertion = B.map([(B.text("signature"), B.bytes(signature)), (B.text("authenticatorData"), B.bytes(authData))])
        let key = try AttestationObject(vector.attestation).authenticatorData.attestedCredential!.publicKey.uncompressedPoint
        #expect(throws: AppAttestError(.badSignature)) {
            try AssertionVerifier().verify(assertion: assertion, publicKey: key, clientDataHash: [1, 2, 3], appIDs: [appID], previousCounter: 0)
        }
        #expect(throws: AppAttestError(.malformed("publicKey"))) {
            try AssertionVerifier().verify(assertion: assertion, publicKey: [0x04] + [UInt8](repeating: 1, count: 64), clientDataHash: [1], appIDs: [appID], previousCounter: 0)
        }
    }
}
