import AppAttest
import Basics
import Foundation
import Testing

@Suite("attestd verify, end to end on Apple's guide vector")
struct VerifyCommandTests {
    let vector: [String: Any] = {
        let url = CLIRunner.fixtures.appendingPathComponent("apple-guide-2026-attestation.json")
        return try! JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
    }()

    var base64File: String { try! CLIRunner.temporaryFile(Data((vector["attestation_b64"] as! String).utf8)) }
    var rawFile: String {
        try! CLIRunner.temporaryFile(Data(Base64.either.decode(vector["attestation_b64"] as! String)!), suffix: ".cbor")
    }
    var keyID: String { vector["key_id_b64"] as! String }
    var clientDataHash: String { vector["client_data_hash_b64"] as! String }
    var appID: String { vector["app_id"] as! String }
    var verifyAt: String { vector["verify_at"] as! String }

    @Test("exits 0 and prints the key, environment, receipt and extensions for a valid attestation")
    func valid() throws {
        let result = try CLIRunner.run([
            "verify", "attestation", base64File, "--app-id", appID, "--key-id", keyID,
            "--client-data-hash", clientDataHash, "--at", verifyAt,
        ])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(result.stdout.contains("valid attestation"))
        #expect(result.stdout.contains("environment: production"))
        #expect(result.stdout.contains("key-id: \(keyID)"))
        #expect(result.stdout.contains("receipt: verified (type ATTEST"))
        #expect(result.stdout.contains("validation-category: 1"))
    }

    @Test("reads raw CBOR and URL-safe base64 from stdin alike")
    func inputForms() throws {
        let urlSafe = (vector["attestation_b64"] as! String).replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let fromStdin = try CLIRunner.run(
            ["verify", "attestation", "-", "--app-id", appID, "--key-id", keyID, "--client-data-hash", clientDataHash,
             "--at", verifyAt],
            stdin: Data(urlSafe.utf8))
        #expect(fromStdin.status == 0)
        let fromRaw = try CLIRunner.run([
            "verify", "attestation", rawFile, "--app-id", "1234567890.com.example.myapp.Clip", "--app-id", appID,
            "--key-id", keyID, "--client-data-hash", clientDataHash, "--at", verifyAt,
        ])
        #expect(fromRaw.status == 0)
        #expect(fromRaw.stdout.contains("app-id: \(appID)"))
    }

    @Test("exits 1 with one stderr line naming chainInvalid(expired) after the leaf's end")
    func expired() throws {
        let result = try CLIRunner.run([
            "verify", "attestation", base64File, "--app-id", appID, "--key-id", keyID,
            "--client-data-hash", clientDataHash, "--at", "2026-05-01T00:00:00Z",
        ])
        #expect(result.status == 1)
        #expect(result.stderrLines.count == 1)
        #expect(result.stderr.hasPrefix("chainInvalid(expired)"))
        #expect(result.stdout.isEmpty)
    }

    @Test("exits 1 naming the failed rule: nonce, App ID, environment of a key")
    func invalidReasons() throws {
        let hashedChallenge = try CLIRunner.run([
            "verify", "attestation", base64File, "--app-id", appID, "--key-id", keyID,
            "--challenge", clientDataHash, "--at", verifyAt,
        ])
        #expect(hashedChallenge.status == 1)
        #expect(hashedChallenge.stderr.hasPrefix("nonceMismatch"))
        let otherApp = try CLIRunner.run([
            "verify", "attestation", base64File, "--app-id", "1234567890.com.example.other", "--key-id", keyID,
            "--client-data-hash", clientDataHash, "--at", verifyAt,
        ])
        #expect(otherApp.status == 1)
        #expect(otherApp.stderr.hasPrefix("appIdMismatch"))
        let garbage = try CLIRunner.run([
            "verify", "attestation", try CLIRunner.temporaryFile(Data([0xa1, 0x00])), "--app-id", appID,
            "--key-id", keyID, "--client-data-hash", clientDataHash,
        ])
        #expect(garbage.status == 1)
        #expect(garbage.stderr.hasPrefix("malformed(attestationObject)"))
    }

    @Test("exits 2 on usage and I/O errors")
    func usage() throws {
        let cases: [[String]] = [
            ["verify"],
            ["verify", "attestation", base64File, "--app-id", appID, "--client-data-hash", clientDataHash],
            ["verify", "attestation", base64File, "--app-id", appID, "--key-id", keyID],
            ["verify", "attestation", base64File, "--app-id", appID, "--key-id", keyID, "--client-data-hash",
             clientDataHash, "--challenge", clientDataHash],
            ["verify", "attestation", "/nonexistent/file", "--app-id", appID, "--key-id", keyID,
             "--client-data-hash", clientDataHash],
            ["verify", "attestation", base64File, "--app-id", "nodot", "--key-id", keyID, "--client-data-hash",
             clientDataHash],
            ["verify", "attestation", base64File, "--app-id", appID, "--key-id", keyID, "--client-data-hash",
             clientDataHash, "--environment", "staging"],
            ["verify", "attestation", base64File, "--app-id", appID, "--key-id", keyID, "--client-data-hash",
             clientDataHash, "--at", "yesterday"],
            ["verify", "attestation", base64File, "--app-id", appID, "--key-id", keyID, "--client-data-hash",
             clientDataHash, "--typo", "x"],
            ["verify", "assertion", base64File, "--app-id", appID, "--public-key", "/nonexistent.pem",
             "--client-data", "AA==", "--previous-counter", "0"],
        ]
        for arguments in cases {
            let result = try CLIRunner.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains("usage:"), "\(arguments)")
        }
    }

    @Test("verifies an assertion's structure and signature, exiting 1 with the reason")
    func assertion() throws {
        let pem = try CLIRunner.temporaryFile(Data((vector["credential_public_key_pem"] as! String).utf8), suffix: ".pem")
        let authData = AppID(appID)!.rpIDHash + [0x40, 0, 0, 0, 1]
        // {"signature": h'300602010102 0101', "authenticatorData": authData}: well formed, not signed by the key.
        var assertion: [UInt8] = [0xa2, 0x69] + Array("signature".utf8) + [0x48, 0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01]
        assertion += [0x71] + Array("authenticatorData".utf8) + [0x58, UInt8(authData.count)] + authData
        let file = try CLIRunner.temporaryFile(Data(assertion))
        let result = try CLIRunner.run([
            "verify", "assertion", file, "--app-id", appID, "--public-key", pem, "--client-data", "AAEC",
            "--previous-counter", "0",
        ])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("badSignature"))
        let malformed = try CLIRunner.run([
            "verify", "assertion", try CLIRunner.temporaryFile(Data([0xa0])), "--app-id", appID, "--public-key", pem,
            "--client-data-hash", "AAEC", "--previous-counter", "0",
        ])
        #expect(malformed.status == 1)
        #expect(malformed.stderr.hasPrefix("malformed(assertion)"))
    }
}
