import Config
import HTTP
import Testing

@Suite("Configuration validation")
struct ConfigurationTests {
    func parse(_ text: String) throws(ConfigurationError) -> Configuration {
        try Configuration.parse(json: Array(text.utf8), baseDirectory: "/etc/attestd")
    }

    let valid = """
        {"listeners":[{"address":"127.0.0.1","port":8080},
                      {"address":"0.0.0.0","port":8443,"tls":{"certificate":"tls/cert.pem","privateKey":"/keys/key.pem"}}],
         "keys":{"challengeKey":"keys/challenge.json","artifactKey":"keys/artifact.json","tokenSigning":["keys/a.pem","keys/b.pem"]},
         "projects":[{"number":"123456789012","id":"attestd-dev","apps":[
            {"appId":"1:123456789012:ios:0123456789abcdef","teamId":"DEVTEAM123","bundleIds":["dev.attestd.example"],
             "environment":"development"}]}]}
        """

    @Test("tokens.algorithm is RS256 unless the file says ES256, and nothing else")
    func tokenAlgorithm() throws {
        let es256 = valid.replacingOccurrences(of: #""listeners""#, with: #""tokens":{"algorithm":"ES256"},"listeners""#)
        #expect(try parse(es256).tokens.algorithm == .es256)
        let bad = valid.replacingOccurrences(of: #""listeners""#, with: #""tokens":{"algorithm":"PS256"},"listeners""#)
        #expect(throws: ConfigurationError.self) { try parse(bad) }
    }

    @Test("reads a valid file, applies defaults and resolves relative paths against its directory")
    func validFile() throws {
        let configuration = try parse(valid)
        #expect(configuration.listeners.count == 2)
        #expect(configuration.listeners[1].tls?.certificatePath == "/etc/attestd/tls/cert.pem")
        #expect(configuration.listeners[1].tls?.privateKeyPath == "/keys/key.pem")
        #expect(configuration.keys.sessionTicketKeyPath == nil)
        #expect(configuration.keys.challengeKeyPath == "/etc/attestd/keys/challenge.json")
        #expect(configuration.keys.tokenSigningKeyPaths == ["/etc/attestd/keys/a.pem", "/etc/attestd/keys/b.pem"])
        #expect(configuration.projects[0].apps[0].tokenTTLSeconds == 3600)
        #expect(configuration.verifier.queueCapacity == 4096)
        #expect(configuration.tokens.issuerPrefix == "https://firebaseappcheck.googleapis.com/")
        #expect(configuration.tokens.algorithm == .rs256)
        #expect(configuration.limits.maxMessageBytes == 65536)
        #expect(configuration.challengeTTLSeconds == 300)
        #expect(configuration.projects[0].apps[0].environment == .development)
    }

    @Test("limits.defaultDeadlineSeconds is 15 unless set, and a deadline of none or over an hour is refused")
    func defaultDeadline() throws {
        #expect(try parse(valid).limits.defaultDeadlineSeconds == 15)
        let set = valid.replacingOccurrences(of: #""listeners""#, with: #""limits":{"defaultDeadlineSeconds":2},"listeners""#)
        #expect(try parse(set).limits.defaultDeadlineSeconds == 2)
        for value in ["0", "3601", "1.5"] {
            let bad = valid.replacingOccurrences(
                of: #""listeners""#, with: #""limits":{"defaultDeadlineSeconds":\#(value)},"listeners""#)
            #expect(throws: ConfigurationError.self) { try parse(bad) }
        }
    }

    @Test("the repository's config/dev.json is valid")
    func devConfig() throws {
        let path = #filePath.replacingOccurrences(of: "Tests/ConfigTests/ConfigurationTests.swift", with: "config/dev.json")
        let configuration = try Configuration.load(path: path)
        #expect(configuration.projects[0].number == "123456789012")
        #expect(configuration.projects[0].apps[0].teamID == "DEVTEAM123")
    }

    @Test("names every bad field in one pass")
    func namesFields() {
        let text = """
            {"listeners":[{"port":70000}],"keys":{},"logLevel":"loud","limits":{"maxMessageBytes":"big"},"colour":1,
             "projects":[{"number":"12x","id":"p","apps":[{"appId":"1:999:ios:ab","teamId":"short","bundleIds":["ok.app","bad app"],
             "environment":"staging","tokenTtlSeconds":60,"debugTokenHashes":["abc"]}],
             "serviceAccounts":[{"email":"nobody","publicKey":"sa.pem"}]}]}
            """
        do {
            _ = try parse(text)
            Issue.record("an invalid file was accepted")
        } catch {
            let problems = error.problems.joined(separator: "\n")
            for expected in [
                "listeners[0].port: must be between 0 and 65535",
                "keys.challengeKey: is required",
                "keys.tokenSigning: is required",
                "projects[0].apps[0].tokenTtlSeconds: must be between 1800 and 604800",
                "projects[0].apps[0].debugTokenHashes[0]: must be the SHA-256 of the debug token",
                "projects[0].serviceAccounts[0].email: must be an email address",
                "logLevel: must be one of",
                "limits.maxMessageBytes: must be an integer",
                "colour: unknown field",
                "projects[0].number: must be the numeric project number",
                "projects[0].apps[0].appId: belongs to project 999, not 12x",
                "projects[0].apps[0].teamId: must be 10 capital letters or digits",
                "projects[0].apps[0].bundleIds[1]: must be a bundle id",
                "projects[0].apps[0].environment: must be production or development",
            ] {
                #expect(problems.contains(expected), "missing: \(expected)")
            }
        }
    }

    @Test("a TLS listener that still names recordLayer is refused with a message saying the option is gone", arguments: ["attestd", "openssl"])
    func recordLayerGone(value: String) throws {
        let named = valid.replacingOccurrences(of: #""privateKey":"/keys/key.pem""#, with: #""privateKey":"/keys/key.pem","recordLayer":"\#(value)""#)
        do {
            _ = try parse(named)
            Issue.record("recordLayer was accepted")
        } catch {
            #expect(error.problems == [
                "listeners[1].tls.recordLayer: is no longer an option (OpenSSL's record layer protects every TLS connection): remove it",
            ])
        }
    }

    @Test("keys.sessionTicketKey names the session ticket key file, resolved like the other key files")
    func sessionTicketKey() throws {
        let named = valid.replacingOccurrences(of: #""keys":{"#, with: #""keys":{"sessionTicketKey":"keys/session-tickets.json","#)
        #expect(try parse(named).keys.sessionTicketKeyPath == "/etc/attestd/keys/session-tickets.json")
    }

    @Test("refuses a document that is not JSON")
    func notJSON() {
        #expect(throws: ConfigurationError.self) { try parse("{listeners: [}") }
    }

    @Test("refuses an app id configured twice")
    func duplicateApps() {
        let twice = valid.replacingOccurrences(
            of: "\"environment\":\"development\"}]",
            with: "\"environment\":\"development\"},{\"appId\":\"1:123456789012:ios:0123456789abcdef\",\"teamId\":\"DEVTEAM123\",\"bundleIds\":[\"a.b\"],\"environment\":\"production\"}]")
        do {
            _ = try parse(twice)
            Issue.record("a duplicate app was accepted")
        } catch {
            #expect(error.problems.contains { $0.contains("appId 1:123456789012:ios:0123456789abcdef appears more than once") })
        }
    }
}
