import Basics
import COpenSSL
import Crypto

/// OpenSSL's rates, on this machine and in this run, for the operations each exchange needs: the bound a server
/// is held to. Each operation runs on one thread per core at once (as a server uses them), through the same EVP
/// calls a server makes with its keys already parsed.
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
            case .p384Verify: EVPOperation(keyType: "EC", parameter: "P-384", messageCount: 900, verify: true)
            case .p256Verify: EVPOperation(keyType: "EC", parameter: "P-256", messageCount: 32, verify: true)
            case .rsa2048Sign: EVPOperation(keyType: "RSA", parameter: "2048", messageCount: 300, verify: false)
            case .p256Sign: EVPOperation(keyType: "EC", parameter: "P-256", messageCount: 300, verify: false)
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
            for _ in 0..<4 { precondition(once(), "OpenSSL operation failed") }
            count += 4
            now = MonotonicClock.nanoseconds()
        }
        let cpu = ProcessCPU.threadSeconds() - cpuStart
        return (Double(count) / MonotonicTime.seconds(now - start), Double(count) / max(cpu, 1e-9))
    }
}

/// One signature or verification with SHA-256 on a fresh key, repeated: `EVP_DigestSign*` / `EVP_DigestVerify*`.
final class EVPOperation: TimedOperation {
    private let key: OpaquePointer
    private let context: OpaquePointer
    let message: [UInt8]
    private var signature = [UInt8](repeating: 0, count: 512)
    private var signatureCount = 512
    private let verify: Bool

    /// `keyType` "EC" with a curve name, or "RSA" with a bit count.
    init(keyType: String, parameter: String, messageCount: Int, verify: Bool) {
        self.verify = verify
        let generator = EVP_PKEY_CTX_new_from_name(nil, keyType, nil)
        defer { EVP_PKEY_CTX_free(generator) }
        var generated: OpaquePointer?
        guard EVP_PKEY_keygen_init(generator) == 1 else { preconditionFailure("OpenSSL has no \(keyType) keys") }
        let configured = keyType == "RSA"
            ? EVP_PKEY_CTX_set_rsa_keygen_bits(generator, Int32(parameter) ?? 2048)
            : EVP_PKEY_CTX_set_group_name(generator, parameter)
        guard configured > 0, EVP_PKEY_generate(generator, &generated) == 1, let generated
        else { preconditionFailure("OpenSSL could not generate a \(keyType) \(parameter) key") }
        key = generated
        context = EVP_MD_CTX_new()
        message = SecureRandom.bytes(count: messageCount)
        guard EVP_DigestSignInit_ex(context, nil, "SHA256", nil, nil, key, nil) == 1,
              EVP_DigestSign(context, &signature, &signatureCount, message, message.count) == 1
        else { preconditionFailure("OpenSSL could not sign with \(keyType) \(parameter)") }
    }

    deinit {
        EVP_MD_CTX_free(context)
        EVP_PKEY_free(key)
    }

    /// The signature made at init (over `message`).
    var signatureBytes: [UInt8] { Array(signature.prefix(signatureCount)) }

    /// The key's DER SubjectPublicKeyInfo.
    var publicKeyDER: [UInt8] {
        var output: UnsafeMutablePointer<UInt8>? = nil
        let count = i2d_PUBKEY(key, &output)
        guard count > 0, let output else { return [] }
        defer { CRYPTO_free(output, #fileID, #line) }
        return Array(UnsafeBufferPointer(start: output, count: Int(count)))
    }

    func once() -> Bool {
        EVP_MD_CTX_reset(context)
        if verify {
            return EVP_DigestVerifyInit_ex(context, nil, "SHA256", nil, nil, key, nil) == 1
                && EVP_DigestVerify(context, signature, signatureCount, message, message.count) == 1
        }
        var length = signature.count
        return EVP_DigestSignInit_ex(context, nil, "SHA256", nil, nil, key, nil) == 1
            && EVP_DigestSign(context, &signature, &length, message, message.count) == 1
    }
}
