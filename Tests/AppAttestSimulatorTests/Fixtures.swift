import AppAttestSimulator
import Glibc

/// CA hierarchies made once for the whole test run (each costs a few P-384 key generations).
enum Fixtures {
    static let ca = SimulatedAppleCA()
    static let otherCA = SimulatedAppleCA(name: "Untrusted")
    static let receiptCA = SimulatedReceiptCA()
    static let otherReceiptCA = SimulatedReceiptCA(name: "Untrusted")
    static let appID = "TEAMID1234.com.example.app"

    static func device(_ environment: SimulatedEnvironment = .production, extensions: SimulatedExtensions? = nil) -> SimulatedDevice {
        SimulatedDevice(appID: appID, environment: environment, ca: ca, receiptCA: receiptCA, extensions: extensions)
    }

    /// Now, in seconds since the Unix epoch.
    static var nowSeconds: Int64 { Int64(time(nil)) }

    /// 2026-04-21T18:13:12Z, the time of Apple's guide vector.
    static let guideTime: Int64 = 1_776_795_192
}
