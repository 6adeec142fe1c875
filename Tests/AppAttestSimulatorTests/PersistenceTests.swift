import AppAttest
import AppAttestSimulator
import Crypto
import Foundation
import Testing

@Suite("Simulated CAs and keys saved to files")
struct PersistenceTests {
    static let appID = "TEAMID1234.com.example.app"
    static let appIDs = [AppID(appID)!]

    @Test("a CA saved and loaded attests objects the real verifier accepts with the saved roots as trust anchors")
    func savedCAAttests() throws {
        let directory = SimulatorDirectory(path: TemporaryDirectory.make())
        #expect(try directory.create())
        let (ca, receiptCA) = try directory.load()
        let device = SimulatedDevice(appID: Self.appID, environment: .development, ca: ca, receiptCA: receiptCA)
        let key = device.generateKey()
        let challenge = SecureRandom.bytes(count: 32)
        let attestation = device.attest(key, clientDataHash: SHA256.hash(challenge))

        let verifier = AttestationVerifier(
            trustAnchorsDER: [try TemporaryDirectory.certificateDER(directory.appAttestRootPath)],
            receiptVerifier: ReceiptVerifier(trustAnchorsDER: [try TemporaryDirectory.certificateDER(directory.receiptRootPath)]))
        let verified = try verifier.verify(
            attestationObject: attestation, keyID: key.keyID, clientDataHash: SHA256.hash(challenge),
            appIDs: Self.appIDs, environment: .development)
        #expect(verified.publicKey == key.publicKey)
        #expect(verified.environment == .development)
        guard case .verified = verified.receipt else {
            Issue.record("the receipt signed by the saved receipt CA did not verify: \(verified.receipt)")
            return
        }
    }

    @Test("a loaded CA is the saved one: same certificates, and its objects chain to the original root")
    func loadedIsSaved() throws {
        let path = TemporaryDirectory.make()
        let original = SimulatedAppleCA(name: "Saved")
        let originalReceipts = SimulatedReceiptCA(name: "Saved")
        try original.write(to: path)
        try originalReceipts.write(to: path)
        let loaded = try SimulatedAppleCA(directory: path)
        let loadedReceipts = try SimulatedReceiptCA(directory: path)
        #expect(loaded.rootDER == original.rootDER)
        #expect(loaded.intermediateDER == original.intermediateDER)
        #expect(loadedReceipts.rootDER == originalReceipts.rootDER)
        #expect(loadedReceipts.signingCertificateDER == originalReceipts.signingCertificateDER)

        let device = SimulatedDevice(appID: Self.appID, ca: loaded, receiptCA: loadedReceipts)
        let key = device.generateKey()
        let attestation = device.attest(key, clientDataHash: [7])
        let verified = try AttestationVerifier(
            trustAnchorsDER: [original.rootDER], receiptVerifier: ReceiptVerifier(trustAnchorsDER: [originalReceipts.rootDER])
        ).verify(
            attestationObject: attestation, keyID: key.keyID, clientDataHash: [7],
            appIDs: Self.appIDs, environment: .production)
        #expect(verified.keyID == key.keyID)
    }

    @Test("a saved key's counter advances across loads, and its assertions verify with the saved public key")
    func keyCounterAdvances() throws {
        let path = TemporaryDirectory.make() + "/key.json"
        let device = SimulatedDevice(appID: Self.appID, ca: Fixtures.ca, receiptCA: Fixtures.receiptCA)
        let key = device.generateKey()
        _ = device.assert(key, clientDataHash: [1])
        try key.write(to: path)
        #expect(try TemporaryDirectory.mode(path) == 0o600)

        let reloaded = try SimulatedKey(contentsOf: path)
        #expect(reloaded.keyID == key.keyID)
        #expect(reloaded.publicKey == key.publicKey)
        #expect(reloaded.counter == 1)
        let assertion = device.assertion(reloaded, clientDataHash: SHA256.hash([2]))
        #expect(assertion.counter == 2)
        try reloaded.write(to: path)

        let again = try SimulatedKey(contentsOf: path)
        #expect(again.counter == 2)
        let verified = try AssertionVerifier().verify(
            assertion: device.assert(again, clientDataHash: SHA256.hash([3])), publicKey: key.publicKey,
            clientDataHash: SHA256.hash([3]), appIDs: Self.appIDs, previousCounter: 2)
        #expect(verified.counter == 3)
    }

    @Test("keys are written 0600, certificates 0644, in a new directory of mode 0700")
    func modes() throws {
        let directory = SimulatorDirectory(path: TemporaryDirectory.make() + "/nested/simulator")
        try directory.create()
        #expect(try TemporaryDirectory.mode(directory.path) == 0o700)
        for name in SimulatedAppleCA.FileName.all + SimulatedReceiptCA.FileName.all {
            let mode = try TemporaryDirectory.mode(directory.path + "/" + name)
            #expect(mode == (name.hasSuffix("-key.pem") ? 0o600 : 0o644), "\(name)")
        }
    }

    @Test("an initialised directory is kept as it is unless forced")
    func idempotent() throws {
        let directory = SimulatorDirectory(path: TemporaryDirectory.make())
        #expect(!directory.isInitialized)
        #expect(try directory.create())
        let root = try String(contentsOfFile: directory.appAttestRootPath, encoding: .utf8)
        #expect(try directory.create() == false)
        #expect(try String(contentsOfFile: directory.appAttestRootPath, encoding: .utf8) == root)
        #expect(try directory.create(force: true))
        #expect(try String(contentsOfFile: directory.appAttestRootPath, encoding: .utf8) != root)
    }

    @Test("refuses a CA whose key file is not its certificate's key")
    func mismatchedKey() throws {
        let path = TemporaryDirectory.make()
        try SimulatedAppleCA().write(to: path)
        let rootKey = try String(contentsOfFile: path + "/" + SimulatedAppleCA.FileName.rootKey, encoding: .utf8)
        try rootKey.write(toFile: path + "/" + SimulatedAppleCA.FileName.intermediateKey, atomically: true, encoding: .utf8)
        #expect(throws: SimulatorFileError.malformed) { try SimulatedAppleCA(directory: path) }
    }

    @Test("refuses a key file that is not JSON, or whose keyId is not its key's, and a missing one")
    func malformedKeyFile() throws {
        let path = TemporaryDirectory.make() + "/key.json"
        try "not json".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: SimulatorFileError.malformed) { try SimulatedKey(contentsOf: path) }

        try Fixtures.device().generateKey().write(to: path)
        let other = Fixtures.device().generateKey().keyIDBase64
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let keyIDLine = try #require(text.split(separator: "\n").first { $0.contains("\"keyId\"") })
        try text.replacingOccurrences(of: String(keyIDLine), with: "  \"keyId\" : \"\(other)\",")
            .write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: SimulatorFileError.malformed) { try SimulatedKey(contentsOf: path) }

        #expect(throws: SimulatorFileError.cannotRead) { try SimulatedKey(contentsOf: path + ".missing") }
    }
}
