import Crypto
import Foundation
import Testing
import Tokens

@Suite("Key generation")
struct KeygenTests {
    func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test("writes the four key files, owner-only, in a new owner-only directory", arguments: [SigningAlgorithm.rs256, .es256])
    func writesKeys(algorithm: SigningAlgorithm) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.file("keys")
        let paths = try Keygen.write(into: directory, signing: algorithm, overwrite: false)
        #expect(paths == ["token-signing.pem", "challenge.json", "artifact.json", "session-tickets.json"].map { directory + "/" + $0 })
        #expect(try mode(directory) == 0o700)
        for path in paths { #expect(try mode(path) == 0o600, "\(path)") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).count == 4, "no temporary files left")

        let signing = try PrivateKey(pem: String(contentsOfFile: paths[0], encoding: .utf8))
        #expect(signing.algorithm == algorithm)
        let challenge = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: paths[1]))) as? [String: Any])
        let entry = try #require((challenge["keys"] as? [[String: Any]])?.first)
        #expect(entry["id"] as? Int == 1)
        #expect(Data(base64Encoded: try #require(entry["secret"] as? String))?.count == 32)
        #expect(try ArtifactKeyring(keyFile: paths[2]).versions == [1])
        let tickets = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: paths[3]))) as? [String: Any])
        let ticketKey = try #require((tickets["keys"] as? [[String: Any]])?.first)
        #expect(ticketKey["id"] as? Int == 1)
        #expect(Data(base64Encoded: try #require(ticketKey["secret"] as? String))?.count == 32)
    }

    @Test("refuses to replace existing keys unless told to, and then replaces them all")
    func overwrite() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let paths = try Keygen.write(into: scratch.path, signing: .es256, overwrite: false)
        let before = try paths.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        #expect(throws: KeygenError.fileExists) { try Keygen.write(into: scratch.path, signing: .es256, overwrite: false) }
        #expect(try paths.map { try Data(contentsOf: URL(fileURLWithPath: $0)) } == before)

        try FileManager.default.removeItem(atPath: paths[0])
        #expect(throws: KeygenError.fileExists, "one existing file stops them all") {
            try Keygen.write(into: scratch.path, signing: .es256, overwrite: false)
        }
        #expect(!FileManager.default.fileExists(atPath: paths[0]))

        try Keygen.write(into: scratch.path, signing: .es256, overwrite: true)
        let after = try paths.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        for (old, new) in zip(before.dropFirst(), after.dropFirst()) { #expect(old != new) }
        for path in paths { #expect(try mode(path) == 0o600) }
    }

    @Test("refuses a directory that other users can enter")
    func openDirectory() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: scratch.path)
        #expect(throws: KeygenError.directoryNotPrivate) { try Keygen.write(into: scratch.path, signing: .es256, overwrite: false) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).isEmpty)
    }
}
