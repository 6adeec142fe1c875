import AppAttest
import Basics
import Crypto
import Foundation
import Testing

/// Runs the `attestd-sim` binary built beside the test bundle.
private enum SimulatorCLI {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String

        /// stdout as the one JSON object every command but `flow` prints.
        func json() throws -> [String: Any] {
            let object = try JSONSerialization.jsonObject(with: Data(stdout.utf8))
            return try #require(object as? [String: Any])
        }

        /// The bytes of a base64 member of the JSON object.
        func bytes(_ name: String) throws -> [UInt8] {
            let text = try #require(try json()[name] as? String)
            return try #require(Base64.either.decode(text))
        }
    }

    static let binary: URL = {
        let bundleDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for directory in [bundleDirectory, bundleDirectory.deletingLastPathComponent()] {
            let candidate = directory.appendingPathComponent("attestd-sim")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return bundleDirectory.appendingPathComponent("attestd-sim")
    }()

    static func run(_ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: err, as: UTF8.self))
    }
}

@Suite("attestd-sim as a process: init, attest, assert")
struct SimulatorCLITests {
    let appID = "DEVTEAM123.dev.attestd.example"
    var appIDs: [AppID] { [AppID(appID)!] }

    @Test("objects from init + attest + assert verify with AttestationVerifier and AssertionVerifier")
    func endToEnd() throws {
        let base = TemporaryDirectory.make()
        let directory = base + "/simulator", keyFile = base + "/device-key.json"

        let initialised = try SimulatorCLI.run(["init", "--dir", directory])
        #expect(initialised.status == 0, "\(initialised.stderr)")
        #expect(try initialised.json()["created"] as? Bool == true)
        let again = try SimulatorCLI.run(["init", "--dir", directory])
        #expect(try again.json()["created"] as? Bool == false)

        let challenge = SecureRandom.bytes(count: 32)
        let attested = try SimulatorCLI.run([
            "attest", "--dir", directory, "--key-file", keyFile, "--app-id", appID, "--environment", "development",
            "--challenge", Base64.standard.encode(challenge), "--validation-category", "3", "--bundle-version", "42",
        ])
        #expect(attested.status == 0, "\(attested.stderr)")
        let keyID = try attested.bytes("keyId")
        let publicKey = try attested.bytes("publicKey")
        #expect(keyID.count == 32)
        #expect(publicKey.count == 65)
        #expect(try TemporaryDirectory.mode(keyFile) == 0o600)

        let verified = try AttestationVerifier(
            trustAnchorsDER: [try TemporaryDirectory.certificateDER(directory + "/app-attest-root.pem")],
            receiptVerifier: ReceiptVerifier(trustAnchorsDER: [try TemporaryDirectory.certificateDER(directory + "/receipt-root.pem")])
        ).verify(
            attestationObject: try attested.bytes("attestation"),
            keyID: keyID, clientDataHash: SHA256.hash(challenge), appIDs: appIDs,
            environment: .development)
        #expect(verified.publicKey == publicKey)
        #expect(verified.environment == .development)
        #expect(verified.extensions.validationCategory == 3)
        #expect(verified.extensions.bundleVersion == "42")
        guard case .verified = verified.receipt else {
            Issue.record("receipt not verified: \(verified.receipt)")
            return
        }

        // The iOS SDK's clientData for an assertion: artifact || challenge.
        let clientData = Array("artifact".utf8) + SecureRandom.bytes(count: 32)
        let verifier = AssertionVerifier()
        var previous: UInt32 = 0
        for expected in [UInt32(1), 2] {
            let asserted = try SimulatorCLI.run([
                "assert", "--dir", directory, "--key-file", keyFile, "--app-id", appID,
                "--client-data", Base64.standard.encode(clientData),
            ])
            #expect(asserted.status == 0, "\(asserted.stderr)")
            #expect(try asserted.json()["counter"] as? Int == Int(expected))
            let checked = try verifier.verify(
                assertion: try asserted.bytes("assertion"), publicKey: publicKey,
                clientDataHash: SHA256.hash(clientData), appIDs: appIDs, previousCounter: previous)
            #expect(checked.counter == expected)
            previous = checked.counter
        }

        // --counter N writes exactly N, even going back, for replay and regression tests.
        let regressed = try SimulatorCLI.run([
            "assert", "--dir", directory, "--key-file", keyFile, "--app-id", appID,
            "--client-data", Base64.standard.encode(clientData), "--counter", "1",
        ])
        #expect(try regressed.json()["counter"] as? Int == 1)
        let regressedAssertion = try regressed.bytes("assertion")
        #expect(throws: AppAttestError.self) {
            try verifier.verify(
                assertion: regressedAssertion, publicKey: publicKey, clientDataHash: SHA256.hash(clientData),
                appIDs: appIDs, previousCounter: previous)
        }
    }

    @Test("usage errors exit 2 and other failures exit 1, each with one line on stderr")
    func errors() throws {
        let missing = try SimulatorCLI.run(["attest", "--dir", TemporaryDirectory.make()])
        #expect(missing.status == 2)
        #expect(missing.stderr.split(separator: "\n").count == 1)
        #expect(missing.stdout.isEmpty)

        let uninitialised = try SimulatorCLI.run([
            "assert", "--dir", TemporaryDirectory.make(), "--key-file", "/nonexistent.json", "--app-id", appID,
            "--client-data", "AAAA",
        ])
        #expect(uninitialised.status == 1)
        #expect(uninitialised.stderr.split(separator: "\n").count == 1)
        #expect(uninitialised.stderr.contains("attestd-sim init"))
    }
}
