import AppAttest
import AppAttestSimulator
import Crypto

/// Simulated CA hierarchies and devices shared by the mutation, assertion and receipt tests, with verification
/// pinned to one time so that certificate validity is part of what a test decides.
enum SimulatedFixtures {
    static let ca = SimulatedAppleCA()
    static let untrustedCA = SimulatedAppleCA(name: "Untrusted")
    static let receiptCA = SimulatedReceiptCA()
    static let untrustedReceiptCA = SimulatedReceiptCA(name: "Untrusted")

    static let appIDString = "TEAMID1234.com.example.app"
    static let appID = AppID(appIDString)!
    static let clipAppIDString = "TEAMID1234.com.example.app.Clip"
    static let clipAppID = AppID(clipAppIDString)!
    static let otherAppID = AppID("OTHERTEAM1.com.example.other")!

    /// 2026-04-21T18:13:12Z: every simulated object is issued and verified at this time unless a test says otherwise.
    static let time: Int64 = 1_776_795_192
    static let day: Int64 = 86_400

    static func device(
        _ environment: SimulatedEnvironment = .production,
        appID: String = appIDString,
        extensions: SimulatedExtensions? = nil,
        ca: SimulatedAppleCA = ca,
        receiptCA: SimulatedReceiptCA = receiptCA
    ) -> SimulatedDevice {
        SimulatedDevice(appID: appID, environment: environment, ca: ca, receiptCA: receiptCA, extensions: extensions)
    }

    /// A verifier trusting the simulated roots only.
    static func verifier(policy: AttestationPolicy = .default, cacheCapacity: Int = 64) -> AttestationVerifier {
        AttestationVerifier(
            trustAnchorsDER: [ca.rootDER], policy: policy,
            receiptVerifier: ReceiptVerifier(trustAnchorsDER: [receiptCA.rootDER]), cacheCapacity: cacheCapacity)
    }
}

/// One simulated attestation and the inputs a server would verify it with; each `verify` argument defaults to
/// the matching, valid input, so a test changes only the one it is about.
struct SimulatedAttestationCase {
    let device: SimulatedDevice
    let key: SimulatedKey
    let clientDataHash: [UInt8]
    let attestation: SimulatedAttestation

    init(
        _ environment: SimulatedEnvironment = .production,
        appID: String = SimulatedFixtures.appIDString,
        extensions: SimulatedExtensions? = nil,
        ca: SimulatedAppleCA = SimulatedFixtures.ca,
        receiptCA: SimulatedReceiptCA = SimulatedFixtures.receiptCA,
        options: AttestationOptions = AttestationOptions()
    ) {
        device = SimulatedFixtures.device(environment, appID: appID, extensions: extensions, ca: ca, receiptCA: receiptCA)
        key = device.generateKey()
        clientDataHash = SHA256.hash(SecureRandom.bytes(count: 32))
        var options = options
        options.issuedAt = options.issuedAt ?? SimulatedFixtures.time
        attestation = device.attestation(key, clientDataHash: clientDataHash, options: options)
    }

    var object: [UInt8] { attestation.object }

    @discardableResult
    func verify(
        object: [UInt8]? = nil,
        keyID: [UInt8]? = nil,
        clientDataHash: [UInt8]? = nil,
        appIDs: [AppID] = [SimulatedFixtures.appID],
        environment: AppAttestEnvironment = .production,
        at time: Int64 = SimulatedFixtures.time,
        verifier: AttestationVerifier = SimulatedFixtures.verifier()
    ) throws(AppAttestError) -> VerifiedAttestation {
        try verifier.verify(
            attestationObject: object ?? self.object, keyID: keyID ?? key.keyID,
            clientDataHash: clientDataHash ?? self.clientDataHash, appIDs: appIDs, environment: environment, at: time)
    }
}
