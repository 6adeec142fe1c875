import Apple
import Config
import Crypto

/// One risk-metric client per app that configures a developer key (`deviceCheck`: Apple authenticates the
/// attestationData endpoint with the same DeviceCheck-enabled `.p8` key), pointed at the app's environment's host
/// or at `apple.riskMetricURL`.
enum RiskMetricClients {
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    static func make(projects: [Configuration.Project], apple: Configuration.AppleServices) throws -> [String: RiskMetricClient] {
        var clients: [String: RiskMetricClient] = [:]
        for app in projects.flatMap(\.apps) {
            guard let key = app.deviceCheck else { continue }
            guard let pem = try? String(contentsOfFile: key.privateKeyPath, encoding: .utf8),
                  let privateKey = try? PrivateKey(pem: pem), privateKey.algorithm == .es256
            else { throw Problem(description: "app \(app.appID): deviceCheck.privateKey \(key.privateKeyPath) is not a readable P-256 .p8 key") }
            let baseURL = apple.riskMetricURL
                ?? (app.environment == .production ? RiskMetricClient.productionURL : RiskMetricClient.developmentURL)
            clients[app.appID] = RiskMetricClient(
                baseURL: baseURL,
                credentials: DeveloperCredentials(teamID: app.teamID, keyID: key.keyID, privateKey: privateKey),
                options: AppleTransportOptions(caBundlePath: apple.caBundlePath))
        }
        return clients
    }
}
