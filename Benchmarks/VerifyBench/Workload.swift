import AppAttest
import AppAttestSimulator
import Crypto

/// Precomputed inputs for the verifier: distinct attestations (so every leaf signature is really verified) and
/// assertions with their previous counters, all made by the simulator before any clock starts.
struct Workload {
    struct AttestationInput {
        var object: [UInt8]
        var keyID: [UInt8]
        var clientDataHash: [UInt8]
    }

    struct AssertionInput {
        var object: [UInt8]
        var publicKey: [UInt8]
        var clientDataHash: [UInt8]
        var previousCounter: UInt32
    }

    static let appIDString = "TEAMID1234.com.example.bench"

    let ca = SimulatedAppleCA(name: "Bench")
    let receiptCA = SimulatedReceiptCA(name: "Bench")
    let appID = AppID(appIDString)!
    let device: SimulatedDevice
    let attestationsWithReceipt: [AttestationInput]
    let attestationsWithoutReceipt: [AttestationInput]
    let assertions: [AssertionInput]

    /// `count` attestations of each kind and `count` assertions (over `count / 8` keys), from an iOS 27 device.
    init(count: Int) {
        let device = SimulatedDevice(
            appID: Self.appIDString, environment: .production, ca: ca, receiptCA: receiptCA,
            extensions: .appleGuideSample)
        self.device = device
        func attestations(receipt: AttestationOptions.Receipt) -> [AttestationInput] {
            (0..<count).map { _ in
                let key = device.generateKey()
                let hash = SecureRandom.bytes(count: 32)
                let object = device.attest(key, clientDataHash: hash, options: .init { $0.receipt = receipt })
                return AttestationInput(object: object, keyID: key.keyID, clientDataHash: hash)
            }
        }
        attestationsWithReceipt = attestations(receipt: .signed())
        attestationsWithoutReceipt = attestations(receipt: .omitted)
        let keys = (0..<max(1, count / 8)).map { _ in device.generateKey() }
        assertions = (0..<count).map { index in
            let key = keys[index % keys.count]
            let hash = SecureRandom.bytes(count: 32)
            let previous = key.counter
            let object = device.assert(key, clientDataHash: hash)
            return AssertionInput(object: object, publicKey: key.publicKey, clientDataHash: hash, previousCounter: previous)
        }
    }

    /// An attestation verifier trusting the simulated roots, keeping `cacheCapacity` verified intermediates.
    func attestationVerifier(cacheCapacity: Int) -> AttestationVerifier {
        AttestationVerifier(
            trustAnchorsDER: [ca.rootDER],
            receiptVerifier: ReceiptVerifier(trustAnchorsDER: [receiptCA.rootDER]),
            cacheCapacity: cacheCapacity)
    }
}
