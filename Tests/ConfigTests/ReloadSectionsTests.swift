import Config
import Testing

@Suite("What a configuration reload applies and what waits for a restart")
struct ReloadSectionsTests {
    /// A configuration with a listener on `port`, apps `appIDs`, and `extra` members added to the root object.
    func parse(port: Int = 8080, appIDs: [String] = ["0123456789abcdef"], extra: String = "") throws -> Configuration {
        let apps = appIDs.map { id in
            #"{"appId":"1:123456789012:ios:\#(id)","teamId":"DEVTEAM123","bundleIds":["dev.attestd.\#(id)"],"environment":"development"}"#
        }
        let text = """
            {"listeners":[{"address":"127.0.0.1","port":\(port)}],
             "keys":{"challengeKey":"c.json","artifactKey":"a.json","tokenSigning":["t.pem"]},
             \(extra)
             "projects":[{"number":"123456789012","id":"attestd-dev","apps":[\(apps.joined(separator: ","))]}]}
            """
        return try Configuration.parse(json: Array(text.utf8), baseDirectory: "/etc/attestd")
    }

    @Test("the same file read twice changes no section")
    func sameFile() throws {
        let ids = (0..<8).map { "00000000000000a\($0)" }
        let allowed = ids.map { "\"1:123456789012:ios:\($0)\"" }.joined(separator: ",")
        let extra = #""gateway":{"routes":[{"name":"r","pathPrefix":"/v1/","methods":["POST","GET","PUT"],"apps":[\#(allowed)]}]},"#
        #expect(try parse(appIDs: ids, extra: extra).changedSections(comparedWith: parse(appIDs: ids, extra: extra)).isEmpty)
    }

    @Test("sets compare by their members, not the order they were built in")
    func setOrder() throws {
        let first = try parse(extra: #""gateway":{"routes":[{"name":"r","pathPrefix":"/v1/","methods":["POST","GET","PUT","DELETE"]}]},"#)
        let second = try parse(extra: #""gateway":{"routes":[{"name":"r","pathPrefix":"/v1/","methods":["DELETE","PUT","GET","POST"]}]},"#)
        #expect(first.changedSections(comparedWith: second).isEmpty)
    }

    @Test("an added app and a changed route policy are reloadable sections")
    func reloadable() throws {
        let running = try parse()
        let reloaded = try parse(appIDs: ["0123456789abcdef", "fedcba9876543210"],
                                 extra: #""gateway":{"defaultRoute":{"mode":"deny"}},"#)
        let changed = reloaded.changedSections(comparedWith: running)
        #expect(changed.map(\.name) == ["projects", "gateway"])
        #expect(changed.allSatisfy { $0.reloadable })
    }

    @Test("a listener, store or limits change is restart-only, and applying a reload keeps the running values")
    func restartOnly() throws {
        let running = try parse()
        let reloaded = try parse(port: 9090, appIDs: ["0123456789abcdef", "fedcba9876543210"],
                                 extra: #""store":{"kind":"memory"},"limits":{"maxMessageBytes":2048},"#)
        let changed = reloaded.changedSections(comparedWith: running)
        #expect(changed.filter { !$0.reloadable }.map(\.name) == ["listeners", "limits", "store"])
        let applied = running.applyingReloadable(from: reloaded)
        #expect(applied.listeners[0].port == 8080)
        #expect(applied.limits.maxMessageBytes == running.limits.maxMessageBytes)
        guard case .sqlite = applied.store else {
            Issue.record("the running store was replaced by the reloaded file's")
            return
        }
        #expect(applied.projects[0].apps.count == 2)
        #expect(applied.changedSections(comparedWith: running).map(\.name) == ["projects"])
    }

    @Test("every section names a member of the file, and restart-only ones include the listeners and the store")
    func sectionNames() {
        let names = Configuration.sections.map(\.name)
        #expect(Set(names).count == names.count)
        let restartOnly = Set(Configuration.sections.filter { !$0.reloadable }.map(\.name))
        #expect(restartOnly.isSuperset(of: ["listeners", "store", "eventLoops", "limits", "verifier", "admission",
                                            "apple", "receipts", "trust", "keys.sessionTicketKey"]))
        let reloadable = Set(Configuration.sections.filter(\.reloadable).map(\.name))
        #expect(reloadable.isSuperset(of: ["projects", "callers", "keys.tokenSigning", "gateway", "tokens"]))
    }
}
