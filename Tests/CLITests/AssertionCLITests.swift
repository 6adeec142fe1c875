import AppAttest
import Basics
import Crypto
import Foundation
import Testing

/// Assertions signed for real by a P-256 key the `openssl` command line makes, so that `verify assertion` is
/// exercised end to end without a recorded device.
@Suite("attestd verify assertion, end to end with an OpenSSL-made key")
struct AssertionCLITests {
    let appID = AppID("TEAMID1234.com.example.app")!
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("attestd-assertion-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Self.openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", path("key.pem")])
        try Self.openssl(["ec", "-in", path("key.pem"), "-pubout", "-out", path("public.pem")])
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    @discardableResult
    static func openssl(_ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// `{signature, authenticatorData}` as the device makes it: ECDSA-SHA256 over SHA256(authData || clientDataHash).
    func assertion(counter: UInt32, clientData: [UInt8], extensions: [UInt8] = []) throws -> String {
        let authData = appID.rpIDHash + [0x40] + (0..<4).reversed().map { UInt8(truncatingIfNeeded: counter >> ($0 * 8)) }
            + extensions
        let nonce = SHA256.hash(authData, SHA256.hash(clientData))
        try Data(nonce).write(to: URL(fileURLWithPath: path("nonce.bin")))
        #expect(try Self.openssl(["dgst", "-sha256", "-sign", path("key.pem"), "-out", path("sig.der"), path("nonce.bin")]) == 0)
        let signature = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path("sig.der"))))
        var object: [UInt8] = [0xa2, 0x69] + Array("signature".utf8) + [0x58, UInt8(signature.count)] + signature
        object += [0x71] + Array("authenticatorData".utf8) + [0x58, UInt8(authData.count)] + authData
        let file = path("assertion-\(counter).b64")
        try Data(Base64.standard.encode(object).utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    func verify(_ file: String, clientData: [UInt8], previous: UInt32, appID: String? = nil) throws -> CLIRunner.Result {
        try CLIRunner.run([
            "verify", "assertion", file, "--app-id", appID ?? self.appID.string, "--public-key", path("public.pem"),
            "--client-data", Base64.standard.encode(clientData), "--previous-counter", String(previous),
        ])
    }

    @Test("exits 0 and prints the new counter for a valid assertion")
    func valid() throws {
        let clientData = Array("artifact-and-challenge".utf8)
        let result = try verify(try assertion(counter: 5, clientData: clientData), clientData: clientData, previous: 4)
        #expect(result.status == 0)
        #expect(result.stdout.contains("valid assertion"))
        #expect(result.stdout.contains("counter: 5"))
    }

    @Test("accepts the iOS 27 extension map after the 37 bytes and prints it")
    func extensions() throws {
        let clientData = Array("with-extensions".utf8)
        let map: [UInt8] = [0xa1, 0x77] + Array("apple_bundle_version_01".utf8) + [0x62] + Array("42".utf8)
        let result = try verify(try assertion(counter: 2, clientData: clientData, extensions: map), clientData: clientData, previous: 1)
        #expect(result.status == 0)
        #expect(result.stdout.contains("bundle-version: 42"))
    }

    @Test("exits 1 naming counterNotIncreasing, appIdMismatch and badSignature")
    func invalid() throws {
        let clientData = Array("challenge".utf8)
        let file = try assertion(counter: 3, clientData: clientData)
        let equal = try verify(file, clientData: clientData, previous: 3)
        #expect(equal.status == 1)
        #expect(equal.stderr.hasPrefix("counterNotIncreasing"))
        let lower = try verify(file, clientData: clientData, previous: 9)
        #expect(lower.stderr.hasPrefix("counterNotIncreasing"))
        let otherApp = try verify(file, clientData: clientData, previous: 0, appID: "TEAMID1234.com.example.other")
        #expect(otherApp.status == 1)
        #expect(otherApp.stderr.hasPrefix("appIdMismatch"))
        let otherData = try verify(file, clientData: Array("another".utf8), previous: 0)
        #expect(otherData.status == 1)
        #expect(otherData.stderr.hasPrefix("badSignature"))
        #expect(otherData.stderrLines.count == 1)
    }
}
