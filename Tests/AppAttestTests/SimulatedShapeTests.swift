import AppAttest
import AppAttestSimulator
import Crypto
import Foundation
import Testing

/// The simulator's objects set beside Apple's guide vector (a real iOS 27 production attestation): same envelope
/// bytes, same authenticator-data layout, same certificate extensions in the same order.
@Suite("Simulated objects have the shape of Apple's")
struct SimulatedShapeTests {
    let apple: [UInt8]
    let simulated: SimulatedAttestation

    init() throws {
        let url = try #require(Bundle.module.url(forResource: "apple-guide-2026-attestation", withExtension: "json", subdirectory: "Fixtures"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let base64 = try #require(json["attestation_b64"] as? String)
        apple = [UInt8](try #require(Data(base64Encoded: base64)))
        let device = SimulatedFixtures.device(extensions: .appleGuideSample)
        simulated = device.attestation(device.generateKey(), clientDataHash: SHA256.hash([1]))
    }

    @Test("the envelope starts with the same 36 bytes: fmt, attStmt, x5c of two, in Apple's order")
    func envelopePrefix() {
        #expect(Array(simulated.object.prefix(36)) == Array(apple.prefix(36)))
    }

    @Test("the authenticator data has Apple's layout, flags, aaguid and byte-identical extensions map")
    func authenticatorData() throws {
        let real = try AttestationObject(apple).authenticatorData
        let ours = try AttestationObject(simulated.object).authenticatorData
        #expect(ours.rawValue.count == real.rawValue.count)
        #expect(ours.flags == real.flags)
        #expect(ours.signCount == real.signCount)
        #expect(ours.attestedCredential?.aaguid == real.attestedCredential?.aaguid)
        #expect(ours.attestedCredential?.credentialID.count == real.attestedCredential?.credentialID.count)
        #expect(Array(ours.rawValue[164...]) == Array(real.rawValue[164...]))
        #expect(ours.extensions == real.extensions)
    }

    @Test("the credential certificate carries Apple's extensions in Apple's order, and the nonce in Apple's DER")
    func credentialCertificate() throws {
        let real = try Certificate(derEncoded: try AttestationObject(apple).certificateChainDER[0])
        let ours = try Certificate(derEncoded: simulated.certificateChain[0])
        // Apple's 2026 leaves add an undocumented policy blob (1.2.840.113635.100.8.6) that the simulator omits.
        #expect(ours.extensionOIDs.count == 6)
        #expect(ours.extensionOIDs == real.extensionOIDs.filter { $0 != "1.2.840.113635.100.8.6" })
        let realNonce = try #require(real.extensionValue(oid: "1.2.840.113635.100.8.2"))
        let ourNonce = try #require(ours.extensionValue(oid: "1.2.840.113635.100.8.2"))
        #expect(ourNonce.count == realNonce.count)
        #expect(Array(ourNonce.prefix(6)) == Array(realNonce.prefix(6)))
        #expect(real.notAfter - real.notBefore == ours.notAfter - ours.notBefore)
        #expect(ours.publicKey?.curveName == real.publicKey?.curveName)
    }
}
