import COpenSSL
import Crypto

/// OpenSSL's rates, on this machine and in this run, for the operations each exchange needs: the bound a server
/// is held to. Each operation runs on `threads` threads at once (all cores, as the server uses them), through the
/// same EVP calls a server makes with its keys already parsed.
struct CryptoBound: Sendable {
    /// Operations per second, all threads together.
    var p384Verify: Double
    var p256Verify: Double
    var rsa2048Sign: Double
    var p256Sign: Double
    var threads: Int

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

    static func measure(threads: Int, secondsEach: Double) -> CryptoBound {
        func rate(_ make: @escaping @Sendable () -> EVPOperation) -> Double {
            Threads.map(threads) { _ in
                let operation = make()
                return operation.rate(seconds: secondsEach)
            }.reduce(0, +)
        }
        return CryptoBound(
            p384Verify: rate { EVPOperation(keyType: "EC", parameter: "P-384", messageCount: 900, verify: true) },
            p256Verify: rate { EVPOperation(keyType: "EC", parameter: "P-256", messageCount: 32, verify: true) },
            rsa2048Sign: rate { EVPOperation(keyType: "RSA", parameter: "2048", messageCount: 300, verify: false) },
            p256Sign: rate { EVPOperation(keyType: "EC", parameter: "P-256", messageCount: 300, verify: false) },
            threads: threads)
    }
}

/// One signature or verification with SHA-256 on a fresh key, repeated: `EVP_DigestSign*` / `EVP_DigestVerify*`.
final class EVPOperation {
    private let key: OpaquePointer
    private let context: OpaquePointer
    private let message: [UInt8]
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

    /// Operations per second over about `seconds`.
    func rate(seconds: Double) -> Double {
        let start = MonotonicTime.nanoseconds()
        let end = start + MonotonicTime.nanoseconds(seconds: seconds)
        var count = 0
        var now = start
        while now < end {
            for _ in 0..<4 { precondition(once(), "OpenSSL operation failed") }
            count += 4
            now = MonotonicTime.nanoseconds()
        }
        return Double(count) / MonotonicTime.seconds(now - start)
    }

    private func once() -> Bool {
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
