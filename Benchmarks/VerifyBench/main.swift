import AppAttest
import Crypto

// attestd-verify-bench: single-thread verification rates beside OpenSSL's own ECDSA verify rates, measured in
// the same run, in thread CPU time, interleaved in 10 ms slices so that each ratio compares rates measured under
// the same conditions.
// `swift run -c release attestd-verify-bench [--seconds S] [--count N] [--json]`.

let options = BenchOptions(CommandLine.arguments.dropFirst())
let workload = Workload(count: options.count)

func attestation(_ verifier: AttestationVerifier, _ inputs: [Workload.AttestationInput]) -> (Int) -> Void {
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

let p384 = OpenSSLBaseline(curve: .p384, messageCount: 900)
let p256 = OpenSSLBaseline(curve: .p256, messageCount: 32)
// The same keys and signatures through attestd's Crypto, keys parsed once as its caches keep them: a device's key
// (PublicKeyCache) and the intermediate's key a cached trust-store entry verifies leaves with.
let p256Cached = p256.publicKey
let p384Cached = p384.publicKey
let warm = workload.attestationVerifier(cacheCapacity: 64)
let cold = workload.attestationVerifier(cacheCapacity: 0)
let assertionVerifier = AssertionVerifier()
let simulatedKey = workload.device.generateKey()
let simulatedHash = SHA256.hash([1, 2, 3])
// Token signing as the issuer does it: one JWS signature over a JWT-sized signing input.
let es256Key = try! PrivateKey.generate(.es256)
let rs256Key = try! PrivateKey.generate(.rs256)
let signingInput = [UInt8](repeating: UInt8(ascii: "a"), count: 300)

let benchmarks: [Benchmark] = [
    Benchmark(key: "opensslP384", name: "OpenSSL P-384 verify (SHA-256, 900 B)") { _ in precondition(p384.verifyOnce()) },
    Benchmark(key: "opensslP256", name: "OpenSSL P-256 verify (SHA-256, 32 B)") { _ in precondition(p256.verifyOnce()) },
    Benchmark(key: "p256Cached", name: "attestd P-256 verify, cached key (SHA-256, 32 B)") { _ in
        precondition(p256Cached.isValidSignature(p256.signature, for: p256.message))
    },
    Benchmark(key: "p384Cached", name: "attestd P-384 verify, cached key (SHA-256, 900 B)") { _ in
        precondition(p384Cached.isValidSignature(p384.signature, for: p384.message))
    },
    Benchmark(key: "attestationWarm", name: "attestation, cache warm, no receipt",
              operation: attestation(warm, workload.attestationsWithoutReceipt)),
    Benchmark(key: "attestationFull", name: "attestation, full chain (cache 0), no receipt",
              operation: attestation(cold, workload.attestationsWithoutReceipt)),
    Benchmark(key: "attestationReceiptWarm", name: "attestation + receipt, cache warm",
              operation: attestation(warm, workload.attestationsWithReceipt)),
    Benchmark(key: "attestationReceiptFull", name: "attestation + receipt, full chain (cache 0)",
              operation: attestation(cold, workload.attestationsWithReceipt)),
    Benchmark(key: "assertion", name: "assertion") { index in
        let input = workload.assertions[index % workload.assertions.count]
        do {
            let verified = try assertionVerifier.verify(
                assertion: input.object, publicKey: input.publicKey, clientDataHash: input.clientDataHash,
                appIDs: [workload.appID], previousCounter: input.previousCounter)
            precondition(verified.counter > input.previousCounter)
        } catch {
            fatalError("a simulated assertion failed to verify: \(error)")
        }
    },
    Benchmark(key: "signES256", name: "token signature ES256 (300 B)") { _ in
        precondition((try? es256Key.sign(signingInput))?.count == 64)
    },
    Benchmark(key: "signRS256", name: "token signature RS256 (300 B)") { _ in
        precondition((try? rs256Key.sign(signingInput))?.count == 256)
    },
    // The simulator's own speed, for the load benchmark that precomputes attestations with it.
    Benchmark(key: "simulatorAttest", name: "simulator: attest (key + leaf + receipt)") { _ in
        precondition(!workload.device.attest(workload.device.generateKey(), clientDataHash: simulatedHash).isEmpty)
    },
    Benchmark(key: "simulatorAssert", name: "simulator: assert") { _ in
        precondition(!workload.device.assert(simulatedKey, clientDataHash: simulatedHash).isEmpty)
    },
]

if !options.json { print("measuring \(benchmarks.count) rates for \(options.seconds) s each, interleaved…") }
let best = Stopwatch.interleaved(benchmarks, seconds: options.seconds)

let ratios = Report.ratios(best)
if options.json {
    Report.printJSON(best, ratios: ratios, options: options)
} else {
    Report.printHeader(options)
    for benchmark in benchmarks { Report.printRow(best[benchmark.key]!) }
    Report.printRatios(ratios)
}
