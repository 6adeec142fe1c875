import Apple
import AppAttestSimulator
import AppleStandIn
import Crypto
import Foundation
import HTTP
import TLS

/// The stand-in running in this process over TLS with a certificate made by the openssl CLI, a developer key it
/// trusts, and a client configured to talk to it.
final class StandInFixture {
    static let teamID = "TEAM123456"
    static let keyID = "KEY1234567"

    let directory: URL
    let developerKey: PrivateKey
    let standIn: AppleStandIn
    let certificatePath: String

    init(environment: AppleEnvironment = .development, receiptCA: SimulatedReceiptCA? = nil, riskMetric: Int = 1) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("appletests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        certificatePath = directory.appendingPathComponent("cert.pem").path
        let keyPath = directory.appendingPathComponent("key.pem").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", keyPath, "-out", certificatePath,
        ]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw FixtureError(description: "openssl req failed") }
        developerKey = try PrivateKey.generate(.es256)
        standIn = try AppleStandIn(AppleStandIn.Configuration(
            environment: environment,
            developerKeys: [DeveloperKey(teamID: Self.teamID, keyID: Self.keyID, publicKey: developerKey.publicKey)],
            stateFilePath: directory.appendingPathComponent("bits.json").path,
            listener: HTTPListener(host: "127.0.0.1", port: 0, tls: TLSConfiguration(certificatePath: certificatePath, privateKeyPath: keyPath)),
            receiptCA: receiptCA, riskMetric: riskMetric))
        try standIn.start()
    }

    deinit {
        standIn.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    var baseURL: String { "https://127.0.0.1:\(standIn.port)" }

    /// A client of the stand-in; `key` and `keyID` default to the trusted developer key.
    func client(key: PrivateKey? = nil, keyID: String = StandInFixture.keyID) -> DeviceCheckClient {
        var options = AppleTransportOptions(caBundlePath: certificatePath)
        options.baseBackoffMillis = 20
        options.maxBackoffMillis = 100
        return DeviceCheckClient(
            baseURL: baseURL,
            credentials: DeveloperCredentials(teamID: Self.teamID, keyID: keyID, privateKey: key ?? developerKey),
            options: options)
    }

    /// A risk-metric client of the stand-in, signing with the trusted developer key.
    func riskMetricClient() -> RiskMetricClient {
        RiskMetricClient(
            baseURL: baseURL,
            credentials: DeveloperCredentials(teamID: Self.teamID, keyID: Self.keyID, privateKey: developerKey),
            options: AppleTransportOptions(caBundlePath: certificatePath))
    }

    static func deadline(seconds: Int = 10) -> ContinuousClock.Instant { .now + .seconds(seconds) }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
}
