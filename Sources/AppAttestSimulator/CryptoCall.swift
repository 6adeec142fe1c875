import Crypto

/// How the simulator treats Crypto's failures: as broken invariants. Key generation, certificate building and
/// signing on well-formed inputs fail only when OpenSSL itself is broken or memory is exhausted, and a test tool
/// that cannot sign has no useful way to continue; trapping keeps the simulator's API free of `try`.
enum CryptoCall {
    /// The result of `body`, trapping with `what` and Crypto's error if it throws.
    static func require<T>(_ what: String, _ body: () throws(CryptoError) -> T) -> T {
        do {
            return try body()
        } catch {
            preconditionFailure("AppAttestSimulator: \(what) failed: \(error)")
        }
    }
}
