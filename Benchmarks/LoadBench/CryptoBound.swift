import Basics
import Crypto

/// OpenSSL's rates, on this machine and in this run, for the operations each exchange needs: the bound a server
/// is held to. Each operation runs on one thread per core at once (as a server uses them), through Crypto's public
/// API, the calls attestd makes with its keys already parsed: what attestd's own crypto could do.
///
/// Rates are per CPU-second of each thread, times the cores: what the machine does when the cores are free. On a
/// machine shared with other work the wall-clock rates (kept beside them) are lower, and so is the server's
/// throughput; the CPU-time figures stay comparable from run to run.
struct CryptoBound: Sendable {
    /// Operations per second on all cores (per thread CPU-second, times the number of threads).
    var p384Verify: Double
    var p256Verify: Double
    var rsa2048Sign: Double
    var p256Sign: Double
    var threads: Int
    /// Operations per wall-clock second, all threads together, as measured (lower when the machine is busy).
    var wallClock: [String: Double] = [:]

    /// The token signing rate for a JWS algorithm (`RS256` or `ES256`).
    func tokenSign(_ algorithm: String) -> Double { algorithm == "ES256" ? p256Sign : rsa2048Sign }

    /// Exchanges per second if nothing but their crypto cost anything.
    func bound(_ kind: RequestKind, algorithm: String) -> Double? {
        switch kind {
        case .challenge: nil
        case .attestation: 1 / (1 / p384Verify + 1 / tokenSign(algorithm))
        case .assertion: 1 / (1 / p256Verify + 1 / tokenSign(algorithm))
        }
    }

    /// Requests per second for a mix (`counts[kind]` requests of each kind per cycle), challenges costing nothing.
    func bound(mix counts: [RequestKind: Int], algorithm: String) -> Double {
        let requests = counts.values.reduce(0, +)
        var seconds = 0.0
        for (kind, count) in counts {
            if let rate = bound(kind, algorithm: algorithm) { seconds += Double(count) / rate }
        }
        return Double(requests) / seconds
    }

    /// The operations the bound is made of.
    enum Operation: String, CaseIterable, Sendable {
        case p384Verify, p256Verify, rsa2048Sign, p256Sign

        var rate: WritableKeyPath<CryptoBound, Double> {
            switch self {
            case .p384Verify: \.p384Verify
            case .p256Verify: \.p256Verify
            case .rsa2048Sign: \.rsa2048Sign
            case .p256Sign: \.p256Sign
            }
        }

        func make() -> any TimedOperation {
            switch self {
            // A credential certificate's to-be-signed part is about 900 bytes; an assertion's nonce is 32.
            case .p384Verify: VerifyOperation(curve: .p384, messageCount: 900)
            case .p256Verify: VerifyOperation(curve: .p256, messageCount: 32)
            case .rsa2048Sign: SignOperation(algorithm: .rs256, messageCount: 300)
            case .p256Sign: SignOperation(algorithm: .es256, messageCount: 300)
            }
        }
    }

    /// The operations one request of `kind` needs: its signature verification and the token signature. What the
    /// latency floor's server runs per request.
    static func operations(for kind: RequestKind, algorithm: String) -> [Operation] {
        let sign: Operation = algorithm == "ES256" ? .p256Sign : .rsa2048Sign
        switch kind {
        case .challenge: return []
        case .attestation: return [.p384Verify, sign]
        case .assertion: return [.p256Verify, sign]
        }
    }

    static func measure(threads: Int, secondsEach: Double) -> CryptoBound {
        var bound = CryptoBound(p384Verify: 0, p256Verify: 0, rsa2048Sign: 0, p256Sign: 0, threads: threads)
        bound.remeasure(Operation.allCases, secondsEach: secondsEach)
        return bound
    }

    /// Measures `operations` again, now: a bench re-measures before each kind's phases, so that their ratios are to
    /// the machine's speed in those same minutes (on a shared VM it drifted by up to 40 % within a run).
    mutating func remeasure(_ operations: [Operation], secondsEach: Double) {
        for operation in operations {
            let rates = Threads.map(threads) { _ in operation.make().rate(seconds: secondsEach) }
            self[keyPath: operation.rate] = rates.reduce(0) { $0 + $1.cpu }
            wallClock[operation.rawValue] = rates.reduce(0) { $0 + $1.wall }
        }
    }

    /// CPU seconds one request of `kind` spends in crypto (0 for a challenge).
    func cryptoCPUSeconds(_ kind: RequestKind, algorithm: String) -> Double {
        guard let rate = bound(kind, algorithm: algorithm) else { return 0 }
        return Double(threads) / rate
    }
}

/// An operation the bound is measured with, repeated for a while.
protocol TimedOperation {
    /// Runs the operation once; false when it failed.
    func once() -> Bool
}

extension TimedOperation {
    /// Operations per wall-clock second and per CPU-second of this thread, over about `seconds`.
    func rate(seconds: Double) -> (wall: Double, cpu: Double) {
        let cpuStart = ProcessCPU.threadSeconds()
        let start = MonotonicClock.nanoseconds()
        let end = start + MonotonicTime.nanoseconds(seconds: seconds)
        var count = 0
        var now = start
        while now < end {
            for _ in 0..<4 { precondition(once(), "crypto operation failed") }
            count += 4
            now = MonotonicClock.nanoseconds()
        }
        let cpu = ProcessCPU.threadSeconds() - cpuStart
        return (Double(count) / MonotonicTime.seconds(now - start), Double(count) / max(cpu, 1e-9))
    }
}

/// One ECDSA verification with SHA-256 by a fresh key, repeated: `PublicKey.isValidSignature`, as the verifiers check
/// credential certificates (P-384) and assertions (P-256).
final class VerifyOperation: TimedOperation {
    private let key: PublicKey
    let message: [UInt8]
    let signature: [UInt8]

    init(curve: ECPrivateKey.Curve, messageCount: Int) {
        message = SecureRandom.bytes(count: messageCount)
        do throws(CryptoError) {
            let privateKey = try ECPrivateKey.generate(curve)
            signature = try privateKey.signature(message)
            key = try privateKey.publicKey()
        } catch {
            preconditionFailure("Crypto could not make a \(curve.rawValue) key and signature: \(error)")
        }
    }

    func once() -> Bool {
        key.isValidSignature(signature, for: message)
    }
}

/// One token signature by a fresh key, repeated: `PrivateKey.sign`, as attestd signs App Check tokens (RS256 with
/// RSA-2048, or ES256).
final class SignOperation: TimedOperation {
    private let key: PrivateKey
    let message: [UInt8]

    init(algorithm: SigningAlgorithm, messageCount: Int) {
        message = SecureRandom.bytes(count: messageCount)
        do throws(PrivateKeyError) {
            key = try PrivateKey.generate(algorithm)
        } catch {
            preconditionFailure("Crypto could not make a \(algorithm.rawValue) key: \(error)")
        }
    }

    func once() -> Bool {
        (try? key.sign(message)) != nil
    }
}
