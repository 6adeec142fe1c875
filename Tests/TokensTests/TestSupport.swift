import Basics
import Crypto
import Foundation
import Testing
import Tokens

/// A scratch directory under the system temporary directory, removed by `remove()`.
struct ScratchDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "tokens-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    func file(_ name: String) -> String { path + "/" + name }

    func write(_ name: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: file(name)))
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Runs the `openssl` command-line tool: an implementation independent of our Swift code paths.
enum OpenSSLTool {
    /// The exit status and combined output of `openssl arguments…`.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    /// A PEM private key made by `openssl` itself, e.g. `["genrsa", "-traditional", "2048"]`.
    static func generate(_ arguments: [String]) throws -> String {
        let (status, output) = try run(arguments)
        #expect(status == 0, "openssl \(arguments) failed: \(output)")
        return output
    }
}

/// Builds JWTs with any header and claims, for refusal tests.
enum JWTBuilder {
    /// Signed by `signer` through `JWS.sign`, or with an empty signature when `signer` is nil.
    static func token(header: String, claims: String, signer: PrivateKey?) throws -> String {
        guard let signer else { return Base64.url.encode(Array(header.utf8)) + "." + Base64.url.encode(Array(claims.utf8)) + "." }
        return try JWS.sign(header: header, claims: claims, with: signer)
    }

    /// The JSON object in segment `index` (0 header, 1 claims) of `token`.
    static func segment(_ token: String, _ index: Int) throws -> [String: Any] {
        let part = token.split(separator: ".", omittingEmptySubsequences: false)[index]
        let bytes = try #require(Base64.url.decode(part))
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }
}

/// Keys generated once per test process: RSA generation takes a noticeable fraction of a second.
enum TestKeys {
    static let rsa = try! PrivateKey.generate(.rs256)
    static let rsaOther = try! PrivateKey.generate(.rs256)
    static let p256 = try! PrivateKey.generate(.es256)
    static let p256Other = try! PrivateKey.generate(.es256)
}

/// DER `ECDSA-Sig-Value` from r‖s, written out by hand so the conversion under test is not checked against itself.
func derSignature(fromRaw raw: [UInt8]) -> [UInt8] {
    func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var value = Array(bytes.drop { $0 == 0 })
        if value.isEmpty { value = [0] }
        if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
        return [0x02, UInt8(value.count)] + value
    }
    let body = integer(raw[0..<32]) + integer(raw[32..<64])
    return [0x30, UInt8(body.count)] + body
}
