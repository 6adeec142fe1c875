import Config
import Foundation
import Testing

/// The challenge and session-ticket key files, read from real files.
@Suite("Secret key files")
struct SecretKeyFileTests {
    /// A fresh directory holding `text` as `keys.json`; returns the file's path.
    private func file(_ text: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("attestd-keyfile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("keys.json").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private let secret = Data(repeating: 7, count: 32).base64EncodedString()
    private let shortSecret = Data(repeating: 7, count: 31).base64EncodedString()

    /// The error both loaders give for `text`, or nil when they both read it.
    private func problems(_ text: String) throws -> (challenge: String?, tickets: String?) {
        let path = try file(text)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        var challenge: String?
        var tickets: String?
        do { _ = try ChallengeKeyFile.load(path: path) } catch { challenge = "\(error)" }
        do { _ = try SessionTicketKeyFile.load(path: path) } catch { tickets = "\(error)" }
        return (challenge, tickets)
    }

    @Test("reads every key, oldest first, in both files")
    func reads() throws {
        let path = try file(#"{"keys":[{"id":1,"secret":"\#(secret)"},{"id":2,"secret":"\#(secret)"}]}"#)
        #expect(try ChallengeKeyFile.load(path: path).map(\.id) == [1, 2])
        #expect(try SessionTicketKeyFile.load(path: path).map(\.id) == [1, 2])
    }

    @Test("refuses an id given twice, since the id names the key in every challenge and ticket")
    func duplicateIDs() throws {
        let (challenge, tickets) = try problems(#"{"keys":[{"id":3,"secret":"\#(secret)"},{"id":3,"secret":"\#(secret)"}]}"#)
        #expect(challenge?.contains("keys[1]: id 3 appears twice") == true, "\(challenge ?? "read")")
        #expect(tickets?.contains("keys[1]: id 3 appears twice") == true, "\(tickets ?? "read")")
    }

    @Test("refuses a secret shorter than 32 bytes, naming the entry")
    func shortSecrets() throws {
        let (challenge, tickets) = try problems(#"{"keys":[{"id":1,"secret":"\#(secret)"},{"id":2,"secret":"\#(shortSecret)"}]}"#)
        #expect(challenge?.contains("keys[1] needs an id 0-255 and a base64 secret of at least 32 bytes") == true)
        #expect(tickets?.contains("keys[1] needs an id 0-4294967295 and a base64 secret of at least 32 bytes") == true)
    }

    @Test("refuses ids outside each file's range: a challenge key id is one byte")
    func idRanges() throws {
        let (challenge, tickets) = try problems(#"{"keys":[{"id":256,"secret":"\#(secret)"}]}"#)
        #expect(challenge?.contains("keys[0] needs an id 0-255") == true)
        #expect(tickets == nil)
        let negative = try problems(#"{"keys":[{"id":-1,"secret":"\#(secret)"}]}"#)
        #expect(negative.challenge != nil && negative.tickets != nil)
    }

    @Test("refuses a file of another shape, an empty list, and a secret that is not base64")
    func shapes() throws {
        for text in [#"{"keys":[]}"#, #"[{"id":1}]"#, "not json", #"{"keys":[{"id":1,"secret":"!!"}]}"#] {
            let (challenge, tickets) = try problems(text)
            #expect(challenge != nil && tickets != nil, "\(text)")
        }
    }

    @Test("says how to make a key file that does not exist")
    func missing() {
        let challenge = #expect(throws: (any Error).self) { try ChallengeKeyFile.load(path: "/nonexistent/attestd/challenge.json") }
        #expect(challenge.map { "\($0)" }?.contains("challenge key file does not exist (run `attestd keygen`") == true)
        let tickets = #expect(throws: (any Error).self) { try SessionTicketKeyFile.load(path: "/nonexistent/attestd/tickets.json") }
        #expect(tickets.map { "\($0)" }?.contains("session ticket key file does not exist (run `attestd keygen`") == true)
    }
}
