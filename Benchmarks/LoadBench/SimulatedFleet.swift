import AppAttestSimulator
import Basics
import Crypto
import Glibc

/// The simulated devices the bench speaks for: one App Attest CA (whose root the server must trust), one app's
/// devices, and the precomputation of their attestations and assertions, spread over threads.
final class SimulatedFleet: @unchecked Sendable {
    let ca = SimulatedAppleCA(name: "attestd-bench")
    let receiptCA = SimulatedReceiptCA(name: "attestd-bench")
    let device: SimulatedDevice
    let receipts: Bool

    init(appID: String, environment: SimulatedEnvironment, receipts: Bool) {
        device = SimulatedDevice(appID: appID, environment: environment, ca: ca, receiptCA: receiptCA)
        self.receipts = receipts
    }

    /// Writes the App Attest root (and the receipt root beside it, `<path>.receipt.pem`) as PEM.
    func writeRoots(to path: String) throws(BenchError) {
        try Self.writePEM(ca.rootDER, to: path)
        try Self.writePEM(receiptCA.rootDER, to: path + ".receipt.pem")
    }

    private static func writePEM(_ der: [UInt8], to path: String) throws(BenchError) {
        let padded = Base64.standard.encode(der)
        var pem = "-----BEGIN CERTIFICATE-----\n"
        var line = ""
        for character in padded {
            line.append(character)
            if line.count == 64 { pem += line + "\n"; line = "" }
        }
        if !line.isEmpty { pem += line + "\n" }
        pem += "-----END CERTIFICATE-----\n"
        guard let file = fopen(path, "w") else { throw BenchError("cannot write \(path)") }
        fputs(pem, file)
        fclose(file)
    }

    /// One attestation request per challenge (each a fresh key and a P-384 signature by the simulated CA).
    func attestations(challenges: [[UInt8]], endpoint: Endpoint, threads: Int) -> [(key: SimulatedKey, body: [UInt8])] {
        let chunks = Self.split(challenges.count, threads)
        let options = AttestationOptions { $0.receipt = receipts ? .signed() : .omitted }
        return Threads.map(chunks.count) { [self] part in
            chunks[part].map { index in
                let key = device.generateKey()
                let statement = device.attest(key, clientDataHash: SHA256.hash(challenges[index]), options: options)
                return (key, endpoint.attestationRequest(statement: statement, challenge: challenges[index], keyID: key.keyID))
            }
        }.flatMap { $0 }
    }

    /// For each lane (an attested key and its artifact), one assertion request per challenge given, with the key's
    /// next counters in order.
    func assertions(lanes: [(key: SimulatedKey, artifact: [UInt8])], challenges: [[[UInt8]]], endpoint: Endpoint,
                    threads: Int) -> [[[UInt8]]] {
        let chunks = Self.split(lanes.count, threads)
        return Threads.map(chunks.count) { [self] part in
            chunks[part].map { lane in
                let (key, artifact) = lanes[lane]
                return challenges[lane].map { challenge in
                    let assertion = device.assert(key, clientDataHash: SHA256.hash(artifact, challenge))
                    return endpoint.assertionRequest(artifact: artifact, assertion: assertion, challenge: challenge)
                }
            }
        }.flatMap { $0 }
    }

    /// `count` indices cut into at most `parts` contiguous ranges.
    static func split(_ count: Int, _ parts: Int) -> [Range<Int>] {
        let parts = max(1, min(parts, count))
        return (0..<parts).map { part in (count * part / parts)..<(count * (part + 1) / parts) }
    }
}
