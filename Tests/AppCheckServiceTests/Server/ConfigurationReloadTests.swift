@testable import AppCheckService
import Config
import Foundation
import Observability
import Testing

@Suite("Reloading the configuration file")
struct ConfigurationReloadTests {
    static let project = "123456789012"
    static let firstApp = "1:123456789012:ios:0123456789abcdef"
    static let addedApp = "1:123456789012:ios:fedcba9876543210"

    /// A fresh directory holding a configuration (in-memory store, keys made at start) with `appIDs`.
    struct Setup {
        let directory: URL
        var path: String { directory.appendingPathComponent("config.json").path }

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("attestd-reload-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }

        func write(port: Int = 0, appIDs: [String] = [firstApp], signingKeys: [String] = ["keys/signing.pem"]) throws {
            let apps = appIDs.map { id in
                ["appId": id, "teamId": "DEVTEAM123", "bundleIds": ["dev.attestd.\(id.suffix(4))"], "environment": "development"]
            }
            let configuration: [String: Any] = [
                "listeners": [["address": "127.0.0.1", "port": port]],
                "logLevel": "error",
                "keys": ["challengeKey": "keys/challenge.json", "artifactKey": "keys/artifact.json",
                         "tokenSigning": signingKeys, "generateMissing": true],
                "store": ["kind": "memory"],
                "projects": [["number": project, "id": "attestd-dev", "apps": apps]],
            ]
            try write(text: String(decoding: try JSONSerialization.data(withJSONObject: configuration), as: UTF8.self))
        }

        func write(text: String) throws {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        }

        func service() throws -> AttestdService {
            try AttestdService(configuration: Configuration.load(path: path), configurationPath: path,
                               logger: Logger(label: "test"))
        }
    }

    @Test("an added app is served by the next generation, and /metrics shows that generation")
    func addsAnApp() throws {
        let setup = try Setup()
        try setup.write()
        let service = try setup.service()
        #expect(service.servingGeneration.number == 1)
        #expect(service.metricsText().contains("attestd_config_generation 1\n"))
        #expect(service.metricsText().contains("attestd_config_reloads_total{outcome=\"ok\"} 0\n"))
        #expect(service.servingGeneration.knownApps == [Self.firstApp])

        try setup.write(appIDs: [Self.firstApp, Self.addedApp])
        #expect(service.reloadConfiguration() == .applied(generation: 2))
        #expect(service.servingGeneration.number == 2)
        #expect(service.servingGeneration.knownApps == [Self.firstApp, Self.addedApp])
        let metrics = service.metricsText()
        #expect(metrics.contains("attestd_config_generation 2\n"), "\(metrics)")
        #expect(metrics.contains("attestd_config_reloads_total{outcome=\"ok\"} 1\n"))
        #expect(metrics.contains("attestd_config_reloads_total{outcome=\"refused\"} 0\n"))
    }

    @Test("a file that is not JSON is refused with the reason, and the running generation stays")
    func refusesBadJSON() throws {
        let setup = try Setup()
        try setup.write()
        let service = try setup.service()
        try setup.write(text: "{\"listeners\": [")
        guard case .refused(let reasons) = service.reloadConfiguration() else {
            Issue.record("a file that is not JSON was applied")
            return
        }
        #expect(reasons.contains { $0.contains("not valid JSON") }, "\(reasons)")
        #expect(service.servingGeneration.number == 1)
        #expect(service.metricsText().contains("attestd_config_reloads_total{outcome=\"refused\"} 1\n"))
        #expect(service.metricsText().contains("attestd_config_generation 1\n"))
    }

    @Test("a file naming a signing key that does not exist is refused naming it, and no key file is made")
    func refusesMissingKeyFile() throws {
        let setup = try Setup()
        try setup.write()
        let service = try setup.service()
        try setup.write(appIDs: [Self.firstApp, Self.addedApp], signingKeys: ["keys/signing.pem", "keys/missing.pem"])
        guard case .refused(let reasons) = service.reloadConfiguration() else {
            Issue.record("a file naming a missing key was applied")
            return
        }
        #expect(reasons.contains { $0.contains("missing.pem") }, "\(reasons)")
        #expect(!FileManager.default.fileExists(atPath: setup.directory.appendingPathComponent("keys/missing.pem").path))
        #expect(service.servingGeneration.number == 1)
        #expect(service.servingGeneration.knownApps == [Self.firstApp])
    }

    @Test("a listener change is not applied, while the reloadable change beside it is")
    func keepsListeners() throws {
        let setup = try Setup()
        try setup.write()
        let service = try setup.service()
        try setup.write(port: 9, appIDs: [Self.firstApp, Self.addedApp])
        #expect(service.reloadConfiguration() == .applied(generation: 2))
        #expect(service.servingGeneration.knownApps.contains(Self.addedApp))
        #expect(service.runningConfiguration?.listeners.map(\.port) == [0])
    }
}
