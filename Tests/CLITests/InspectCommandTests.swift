import AppAttest
import Basics
import Foundation
import Testing

@Suite("attestd inspect, end to end on Apple's guide vector")
struct InspectCommandTests {
    let attestation: String = {
        let url = CLIRunner.fixtures.appendingPathComponent("apple-guide-2026-attestation.json")
        let json = try! JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        return json["attestation_b64"] as! String
    }()

    @Test("prints every field of an attestation for a person")
    func text() throws {
        let result = try CLIRunner.run(["inspect", try CLIRunner.temporaryFile(Data(attestation.utf8))])
        #expect(result.status == 0)
        for expected in [
            "kind: attestation", "fmt: apple-appattest", "CN=Apple App Attestation CA 1", "signCount: 0",
            "aaguid: 61707061747465737400000000000000 (production)", "apple_validation_category_01: 1",
            "apple_bundle_version_01: 1", "type: ATTEST", "appId: 1234567890.com.example.myapp",
            "nonce: 87b7d06d93a4294e46f011e66b6cc400f0bab20729976c619580b42ae60bff6e",
        ] {
            #expect(result.stdout.contains(expected), "\(expected)")
        }
    }

    @Test("prints machine-readable JSON with --json")
    func json() throws {
        let result = try CLIRunner.run(["inspect", "--json", try CLIRunner.temporaryFile(Data(attestation.utf8))])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["kind"] as? String == "attestation")
        let authData = try #require(object["authData"] as? [String: Any])
        #expect(authData["signCount"] as? Int == 0)
        #expect(authData["length"] as? Int == 226)
        #expect((object["x5c"] as? [Any])?.count == 2)
        let receipt = try #require(object["receipt"] as? [String: Any])
        #expect(receipt["type"] as? String == "ATTEST")
        #expect(receipt["riskMetric"] is NSNull)
        #expect((receipt["certificates"] as? [Any])?.count == 3)
    }

    @Test("inspects a receipt on its own and an assertion")
    func receiptAndAssertion() throws {
        let object = try AttestationObject(Base64.either.decode(attestation)!)
        let receipt = try CLIRunner.run(["inspect", "--json", try CLIRunner.temporaryFile(Data(object.receipt!))])
        #expect(receipt.status == 0)
        let fields = try #require(try JSONSerialization.jsonObject(with: Data(receipt.stdout.utf8)) as? [String: Any])
        #expect(fields["kind"] as? String == "receipt")
        #expect(fields["environment"] as? String == "production")

        let authData = AppID("1234567890.com.example.myapp")!.rpIDHash + [0x40, 0, 0, 0, 9]
        var assertion: [UInt8] = [0xa2, 0x69] + Array("signature".utf8) + [0x42, 0x30, 0x00]
        assertion += [0x71] + Array("authenticatorData".utf8) + [0x58, UInt8(authData.count)] + authData
        let result = try CLIRunner.run(["inspect", "-"], stdin: Data(Base64.standard.encode(assertion).utf8))
        #expect(result.status == 0)
        #expect(result.stdout.contains("kind: assertion"))
        #expect(result.stdout.contains("signCount: 9"))
    }

    @Test("exits 1 for bytes that are none of the three, and 2 for usage errors")
    func failures() throws {
        let garbage = try CLIRunner.run(["inspect", try CLIRunner.temporaryFile(Data("hello world".utf8))])
        #expect(garbage.status == 1)
        #expect(garbage.stderr.hasPrefix("malformed(input)"))
        #expect(try CLIRunner.run(["inspect"]).status == 2)
        #expect(try CLIRunner.run(["inspect", "/nonexistent"]).status == 2)
        #expect(try CLIRunner.run(["inspect", "a", "b"]).status == 2)
    }
}
