import AppCheckService
import Testing

@Suite("App registry")
struct AppRegistryTests {
    let registry = AppRegistry(projects: [
        .init(number: "123456789012", id: "attestd-dev", apps: [
            .init(appID: "1:123456789012:ios:0123456789abcdef", teamID: "DEVTEAM123",
                  bundleIDs: ["dev.attestd.example", "dev.attestd.example.Clip"], environment: .development),
        ]),
    ])

    @Test("finds an app by project number and by project id")
    func bothProjectForms() throws {
        let byNumber = try registry.app(named: "projects/123456789012/apps/1:123456789012:ios:0123456789abcdef")
        let byID = try registry.app(named: "projects/attestd-dev/apps/1:123456789012:ios:0123456789abcdef")
        #expect(byNumber.appID == byID.appID)
        #expect(byID.appleAppIDs == ["DEVTEAM123.dev.attestd.example", "DEVTEAM123.dev.attestd.example.Clip"])
    }

    @Test("refuses names that are not projects/*/apps/*", arguments: [
        "", "projects/123456789012", "projects//apps/x", "apps/1:2:ios:3", "projects/1/apps/x/extra", "project/1/apps/x",
    ])
    func invalidNames(name: String) {
        #expect(throws: AppLookupError.invalidName(name)) { try registry.app(named: name) }
    }

    @Test("tells an unknown project from an unknown app")
    func unknown() {
        #expect(throws: AppLookupError.unknownProject("999")) { try registry.app(named: "projects/999/apps/1:999:ios:aa") }
        #expect(throws: AppLookupError.unknownApp("1:123456789012:ios:ff")) {
            try registry.app(named: "projects/attestd-dev/apps/1:123456789012:ios:ff")
        }
    }
}
