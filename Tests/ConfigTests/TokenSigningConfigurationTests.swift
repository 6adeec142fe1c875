import Config
import Testing
import Tokens

@Suite("keys.tokenSigning")
struct TokenSigningConfigurationTests {
    func parse(tokenSigning: String) throws(ConfigurationError) -> Configuration {
        let text = """
            {"listeners":[{"address":"127.0.0.1","port":8080}],
             "keys":{"challengeKey":"c.json","artifactKey":"a.json","tokenSigning":\(tokenSigning)},
             "projects":[{"number":"123456789012","id":"p","apps":[
                {"appId":"1:123456789012:ios:ab","teamId":"DEVTEAM123","bundleIds":["a.b"],"environment":"production"}]}]}
            """
        return try Configuration.parse(json: Array(text.utf8), baseDirectory: "/etc/attestd")
    }

    /// The problems of a refused `tokenSigning`, or a recorded issue when it was accepted.
    func problems(_ tokenSigning: String) -> [String] {
        do {
            _ = try parse(tokenSigning: tokenSigning)
            Issue.record("accepted: \(tokenSigning)")
            return []
        } catch {
            return error.problems
        }
    }

    @Test("reads paths and timed entries, in order, resolving files and reading RFC 3339 times with any offset")
    func readsBothForms() throws {
        let keys = try parse(tokenSigning: """
            ["keys/old.pem",
             {"file":"keys/new.pem","publishFrom":"2027-01-15T08:00:00Z","signFrom":"2027-01-15T16:00:00+02:00"}]
            """).keys
        #expect(keys.tokenSigning == [
            .init(path: "/etc/attestd/keys/old.pem"),
            .init(path: "/etc/attestd/keys/new.pem", timing: SigningKeyTiming(publishFrom: 1_800_000_000, signFrom: 1_800_021_600)),
        ])
        #expect(keys.tokenSigningKeyPaths == ["/etc/attestd/keys/old.pem", "/etc/attestd/keys/new.pem"])
    }

    @Test("refuses a timed entry without publishFrom, signFrom or file")
    func refusesMissingFields() {
        #expect(problems(#"["a.pem",{"file":"b.pem","signFrom":"2027-01-15T14:02:00Z"}]"#) == ["keys.tokenSigning[1].publishFrom: is required"])
        #expect(problems(#"["a.pem",{"file":"b.pem","publishFrom":"2027-01-15T08:00:00Z"}]"#) == ["keys.tokenSigning[1].signFrom: is required"])
        #expect(problems(#"[{"publishFrom":"2027-01-15T08:00:00Z","signFrom":"2027-01-15T14:02:00Z"}]"#) == ["keys.tokenSigning[0].file: is required"])
    }

    @Test("refuses an unknown field in a timed entry")
    func refusesUnknownFields() {
        #expect(problems(#"[{"file":"b.pem","publishFrom":"2027-01-15T08:00:00Z","signFrom":"2027-01-15T14:02:00Z","retireAt":"2027-02-01T00:00:00Z"}]"#)
            == ["keys.tokenSigning[0].retireAt: unknown field"])
    }

    @Test("refuses times that are not RFC 3339 date-times, and leap seconds", arguments: [
        "2027-01-15", "2027-01-15 08:00:00Z", "2027-01-15T08:00:00", "1800000000", "2027-02-30T08:00:00Z", "2027-06-30T23:59:60Z",
    ])
    func refusesBadTimes(text: String) {
        #expect(problems(#"[{"file":"b.pem","publishFrom":"\#(text)","signFrom":"2027-01-15T14:02:00Z"}]"#)
            == [#"keys.tokenSigning[0].publishFrom: must be an RFC 3339 time such as 2026-07-01T00:00:00Z, not "\#(text)""#])
        #expect(problems(#"[{"file":"b.pem","publishFrom":"2027-01-15T08:00:00Z","signFrom":1800021720}]"#)
            == ["keys.tokenSigning[0].signFrom: must be a string"])
    }

    @Test("refuses an entry that is neither a path nor an object, an empty list and a list that is not one")
    func refusesBadEntries() {
        #expect(problems(#"["a.pem",7]"#) == ["keys.tokenSigning[1]: must be a string or an object"])
        #expect(problems("[]") == ["keys.tokenSigning: must be a non-empty array"])
        #expect(problems(#""a.pem""#) == ["keys.tokenSigning: must be a non-empty array"])
    }
}
