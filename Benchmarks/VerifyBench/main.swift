import AppAttest
import Crypto

// attestd-verify-bench: single-thread verification rates beside OpenSSL's own ECDSA verify rates, measured in
// the same run. `swift run -c release attestd-verify-bench [--seconds S] [--count N] [--json]`.

let options = BenchOptions(CommandLine.arguments.dropFirst())
let workload = Workload(count: options.count)
var results: [String: Measurement] = [:]

@MainActor func run(_ key: String, _ name: String, _ operation: (Int) -> Void) {
    let measurement = Stopwatch.measure(name, seconds: options.seconds, operation)
    results[key] = measurement
    if !options.json { Report.printRow(measurement) }
}

@MainActor func attestationRun(_ verifier: AttestationVerifier, _ inputs: [Workload.AttestationInput]) -> (Int) -> Void {
    { index in
        let input = inputs[index % inputs.count]
        do {
            let verified = try verifier.verify(
                attestationObject: input.object, keyID: input.keyID, clientDataHash: input.clientDataHash,
                appIDs: [workload.appID], environment: .production)
            precondition(verified.keyID == input.keyID)
        } catch {
            fatalError("a simulated attestation failed to verify: \(error)")
        }
    }
}

if !options.json { Report.printHeader(options) }

let p384 = OpenSSLBaseline(curve: "P-384", messageCount: 900)
let p256 = OpenSSLBaseline(curve: "P-256", messageCount: 32)
run("opensslP384", "OpenSSL P-384 verify (SHA-256, 900 B)") { _ in precondition(p384.verifyOnce()) }
run("opensslP256", "OpenSSL P-256 verify (SHA-256, 32 B)") { _ in precondition(p256.verifyOnce()) }

let warm = workload.attestationVerifier(cacheCapacity: 64)
let cold = workload.attestationVerifier(cacheCapacity: 0)
run("attestationWarm", "attestation, cache warm, no receipt", attestationRun(warm, workload.attestationsWithoutReceipt))
run("attestationFull", "attestation, full chain (cache 0), no receipt", attestationRun(cold, workload.attestationsWithoutReceipt))
run("attestationReceiptWarm", "attestation + receipt, cache warm", attestationRun(warm, workload.attestationsWithReceipt))
run("attestationReceiptFull", "attestation + receipt, full chain (cache 0)", attestationRun(cold, workload.attestationsWithReceipt))

let assertionVerifier = AssertionVerifier()
run("assertion", "assertion") { index in
    let input = workload.assertions[index % workload.assertions.count]
    do {
        let verified = try assertionVerifier.verify(
            assertion: input.object, publicKey: input.publicKey, clientDataHash: input.clientDataHash,
            appIDs: [workload.appID], previousCounter: input.previousCounter)
        precondition(verified.counter > input.previousCounter)
    } catch {
        fatalError("a simulated assertion failed to verify: \(error)")
    }
}

let ratios = Report.ratios(results)
if options.json {
    Report.printJSON(results, ratios: ratios, options: options)
} else {
    Report.printRatios(ratios)
}
