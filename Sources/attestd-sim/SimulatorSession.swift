import AppAttest
import AppAttestSimulator
import Crypto

/// A simulated device whose CAs live in a simulator directory and whose keys live in key files, so each
/// `attestd-sim` invocation picks up where the last one left off.
struct SimulatorSession {
    let device: SimulatedDevice

    /// Loads the CAs from `directory` (made by `attestd-sim init`) for an app signed as `appID`.
    init(directory: String, appID: String, environment: SimulatedEnvironment = .production, extensions: SimulatedExtensions? = nil)
        throws(CommandError)
    {
        guard AppID(appID) != nil else { throw .usage("--app-id must be TEAMID.bundle.id, not \(appID)") }
        let simulator = SimulatorDirectory(path: directory)
        guard simulator.isInitialized else {
            throw .failure("\(directory) holds no simulated CAs: run attestd-sim init --dir \(directory) first")
        }
        let (ca, receiptCA): (SimulatedAppleCA, SimulatedReceiptCA)
        do {
            (ca, receiptCA) = try simulator.load()
        } catch {
            throw .failure(error.description)
        }
        device = SimulatedDevice(appID: appID, environment: environment, ca: ca, receiptCA: receiptCA, extensions: extensions)
    }

    /// A new key, saved to `keyFile` with counter 0, and its attestation over clientDataHash = SHA256(challenge),
    /// the Firebase iOS SDK's rule.
    func attestNewKey(challenge: [UInt8], keyFile: String) throws(CommandError) -> (key: SimulatedKey, attestation: [UInt8]) {
        let key = device.generateKey()
        do {
            try key.write(to: keyFile)
        } catch {
            throw .failure(error.description)
        }
        return (key, device.attest(key, clientDataHash: SHA256.hash(challenge)))
    }

    /// An assertion over clientDataHash = SHA256(clientData) with the key in `keyFile`, whose counter is the stored
    /// one plus one, or exactly `counter` when given; the new counter is saved back.
    func assert(clientData: [UInt8], keyFile: String, counter: UInt32? = nil) throws(CommandError) -> SimulatedAssertion {
        let key: SimulatedKey
        do {
            key = try SimulatedKey(contentsOf: keyFile)
        } catch {
            throw .failure(error.description)
        }
        let assertion = device.assertion(
            key, clientDataHash: SHA256.hash(clientData), options: AssertionOptions { $0.counter = counter })
        do {
            try key.write(to: keyFile)
        } catch {
            throw .failure(error.description)
        }
        return assertion
    }

    static func environment(_ text: String) throws(CommandError) -> SimulatedEnvironment {
        guard let environment = SimulatedEnvironment(rawValue: text) else {
            throw .usage("--environment must be development or production, not \(text)")
        }
        return environment
    }
}
