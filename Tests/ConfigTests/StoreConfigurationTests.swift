import Config
import Testing

@Suite("Configuration of the state store")
struct StoreConfigurationTests {
    /// A valid file with `store` set to the given JSON, or without it.
    func parse(store: String?) throws(ConfigurationError) -> Configuration {
        let text = """
            {"listeners":[{"address":"127.0.0.1","port":8080}],
             "keys":{"challengeKey":"keys/challenge.json","artifactKey":"keys/artifact.json","tokenSigning":["keys/a.pem"]},
             \(store.map { #""store":\#($0),"# } ?? "")
             "projects":[{"number":"123456789012","id":"attestd-dev","apps":[
                {"appId":"1:123456789012:ios:0123456789abcdef","teamId":"DEVTEAM123","bundleIds":["dev.attestd.example"],
                 "environment":"development"}]}]}
            """
        return try Configuration.parse(json: Array(text.utf8), baseDirectory: "/etc/attestd")
    }

    @Test("keeps state in attestd-state.sqlite beside the configuration file when the file names no store")
    func defaultStore() throws {
        let configuration = try parse(store: nil)
        guard case .sqlite(let path, let survivesPowerLoss) = configuration.store else {
            Issue.record("expected the SQLite store, got \(configuration.store)")
            return
        }
        #expect(path == "/etc/attestd/attestd-state.sqlite")
        #expect(!survivesPowerLoss)
        #expect(configuration.storeClockSkewSeconds == 60)
    }

    @Test("keeps state in memory only when the file names it")
    func memoryWhenNamed() throws {
        guard case .memory = try parse(store: #"{"kind":"memory"}"#).store else {
            Issue.record("expected the memory store")
            return
        }
    }

    @Test("reads the clock-skew allowance of every kind of store")
    func clockSkew() throws {
        #expect(try parse(store: #"{"kind":"memory","clockSkewSeconds":0}"#).storeClockSkewSeconds == 0)
        #expect(try parse(store: #"{"kind":"sqlite","path":"s.db","clockSkewSeconds":120}"#).storeClockSkewSeconds == 120)
        #expect(try parse(store: #"{"kind":"redis","redis":{},"clockSkewSeconds":5}"#).storeClockSkewSeconds == 5)
    }

    @Test("refuses a clock-skew allowance that is negative, over an hour, or not a whole number")
    func clockSkewRefused() {
        for value in ["-1", "3601", "1.5", "\"60\""] {
            let error = #expect(throws: ConfigurationError.self) {
                try parse(store: #"{"kind":"memory","clockSkewSeconds":\#(value)}"#)
            }
            #expect(error?.problems.contains { $0.hasPrefix("store.clockSkewSeconds:") } == true, "\(value)")
        }
    }
}
