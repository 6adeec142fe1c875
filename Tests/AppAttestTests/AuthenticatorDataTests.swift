import AppAttest
import Crypto
import Testing

@Suite("Authenticator data and Apple's quirks")
struct AuthenticatorDataTests {
    typealias B = CBORBuilder
    let appID = AppID("1234567890.com.example.myapp")!

    func assertionAuthData(flags: UInt8 = 0x40, counter: UInt32 = 7) -> [UInt8] {
        appID.rpIDHash + [flags] + (0..<4).reversed().map { UInt8(truncatingIfNeeded: counter >> ($0 * 8)) }
    }

    var extensionsMap: [UInt8] {
        B.map([
            (B.text("apple_bundle_version_01"), B.text("42")),
            (B.text("apple_validation_category_01"), B.bytes([4, 0, 0, 0])),
        ])
    }

    @Test("parses an assertion's 37 bytes with the AT flag set and no credential data")
    func atFlagOnAssertion() throws {
        let data = try AuthenticatorData(assertion: assertionAuthData(flags: 0x40))
        #expect(data.rpIDHash == appID.rpIDHash)
        #expect(data.signCount == 7)
        #expect(data.attestedCredential == nil)
        #expect(data.extensions == .none)
        #expect(data.flagNames == ["AT"])
    }

    @Test("parses the iOS 27 extensions map after an assertion's 37 bytes with ED clear")
    func extensionsAfterAssertion() throws {
        let data = try AuthenticatorData(assertion: assertionAuthData(flags: 0x40) + extensionsMap)
        #expect(data.flags & 0x80 == 0)
        #expect(data.extensions.validationCategory == 4)
        #expect(data.extensions.bundleVersion == "42")
        #expect(data.extensions.map != nil)
    }

    @Test("reads the validation category as little-endian bytes or as a plain integer")
    func categoryForms() throws {
        let asBytes = B.map([(B.text("apple_validation_category_01"), B.bytes([0x02, 0x01, 0, 0]))])
        #expect(try AuthenticatorData(assertion: assertionAuthData() + asBytes).extensions.validationCategory == 0x0102)
        let asInteger = B.map([(B.text("apple_validation_category_01"), B.uint(3))])
        #expect(try AuthenticatorData(assertion: assertionAuthData() + asInteger).extensions.validationCategory == 3)
    }

    @Test("ignores unknown extension keys")
    func unknownKeys() throws {
        let map = B.map([(B.text("apple_future_02"), B.uint(9))])
        let data = try AuthenticatorData(assertion: assertionAuthData() + map)
        #expect(data.extensions.validationCategory == nil)
        #expect(data.extensions.map?["apple_future_02"] == .unsigned(9))
    }

    @Test("refuses trailing bytes that are not exactly one CBOR map")
    func trailingGarbage() {
        let cases: [[UInt8]] = [[0x00], B.text("x"), extensionsMap + [0x00], Array(extensionsMap.dropLast())]
        for trailing in cases {
            let error = #expect(throws: AppAttestError.self) { try AuthenticatorData(assertion: assertionAuthData() + trailing) }
            #expect(error?.reason == .malformed("authData.extensions"))
        }
    }

    @Test("refuses a validation category of the wrong shape")
    func badCategory() {
        let map = B.map([(B.text("apple_validation_category_01"), B.bytes([1, 0, 0]))])
        #expect(throws: AppAttestError(.malformed("authData.extensions"))) {
            try AuthenticatorData(assertion: assertionAuthData() + map)
        }
    }

    @Test("refuses authenticator data shorter than 37 bytes")
    func short() {
        #expect(throws: AppAttestError(.malformed("authData"))) {
            try AuthenticatorData(assertion: Array(assertionAuthData().prefix(36)))
        }
    }

    @Test("parses the guide vector's attestation data: credential, COSE key, then extensions with ED clear")
    func attestationWithExtensions() throws {
        let object = try AttestationObject(GuideVector.shared.attestation)
        let data = object.authenticatorData
        #expect(data.rawValue.count == 226)
        #expect(data.flags == 0x40)
        #expect(data.signCount == 0)
        #expect(data.attestedCredential?.aaguid == AppAttestEnvironment.production.aaguid)
        #expect(data.attestedCredential?.credentialID == GuideVector.shared.keyID)
        #expect(SHA256.hash(data.attestedCredential!.publicKey.uncompressedPoint) == GuideVector.shared.keyID)
        #expect(data.extensions.validationCategory == 1)
        #expect(data.extensions.bundleVersion == "1")
        #expect(object.certificateChainDER.count == 2)
        #expect(object.receipt?.isEmpty == false)
    }

    @Test("refuses attestation data whose credential ID runs past the end")
    func credentialTruncated() throws {
        let raw = try AttestationObject(GuideVector.shared.attestation).authenticatorData.rawValue
        #expect(throws: AppAttestError(.malformed("authData.credentialId"))) {
            try AuthenticatorData(attestation: Array(raw.prefix(60)))
        }
        #expect(throws: AppAttestError(.malformed("authData.credentialPublicKey"))) {
            try AuthenticatorData(attestation: Array(raw.prefix(120)))
        }
    }

    @Test("tells environments apart by all 16 aaguid bytes")
    func aaguids() {
        #expect(AppAttestEnvironment(aaguid: Array("appattestdevelop".utf8)) == .development)
        #expect(AppAttestEnvironment(aaguid: Array("appattest".utf8) + [UInt8](repeating: 0, count: 7)) == .production)
        #expect(AppAttestEnvironment(aaguid: Array("appattest".utf8)) == nil)
        #expect(AppAttestEnvironment(aaguid: Array("appattest".utf8) + [0, 0, 0, 0, 0, 0, 1]) == nil)
    }

    @Test("parses App IDs at the first dot")
    func appIDs() {
        let id = AppID("ABCDE12345.com.example.app")
        #expect(id?.teamID == "ABCDE12345")
        #expect(id?.bundleID == "com.example.app")
        #expect(id?.rpIDHash == SHA256.hash(Array("ABCDE12345.com.example.app".utf8)))
        #expect(AppID("nodot") == nil)
        #expect(AppID(".bundle") == nil)
        #expect(AppID("TEAM.") == nil)
    }
}
