internal import COpenSSL
import Synchronization

/// Initialized `EVP_PKEY_CTX`s for one key and one operation (sign or verify), lent to one caller at a time.
///
/// OpenSSL 3.0 makes every `EVP_DigestSignInit`/`EVP_DigestVerifyInit` fetch the signature algorithm and the digest
/// from the provider (name lookups under read-write locks, parameter arrays): per call that cost rivals a P-256
/// signature. A context set up once can sign or verify again and again, but not from two threads at once, so each
/// caller borrows one and gives it back; a pool holds at most `retained` idle contexts (one per thread in practice).
///
/// `@unchecked Sendable`: the idle contexts are only touched with `idle` locked, and a borrowed one by its borrower.
final class PKeyContextPool: @unchecked Sendable {
    /// Builds one ready context (`EVP_PKEY_CTX *`, after `*_init` and its parameters), or nil.
    typealias Factory = @Sendable () -> OpaquePointer?

    private let idle = Mutex<[ContextPointer]>([])
    private let make: Factory
    private let retained: Int

    init(retained: Int = 8, make: @escaping Factory) {
        self.retained = retained
        self.make = make
    }

    deinit {
        idle.withLock { contexts in
            for context in contexts { EVP_PKEY_CTX_free(context.pointer) }
            contexts.removeAll()
        }
    }

    /// Runs `body` with a context nobody else uses meanwhile; nil when none could be made.
    func withContext<T>(_ body: (OpaquePointer) -> T) -> T? {
        let context = idle.withLock { $0.popLast() }?.pointer ?? make()
        guard let context else { return nil }
        let result = body(context)
        let kept = idle.withLock { contexts in
            guard contexts.count < retained else { return false }
            contexts.append(ContextPointer(pointer: context))
            return true
        }
        if !kept { EVP_PKEY_CTX_free(context) }
        return result
    }
}

/// An `EVP_PKEY_CTX *` that may move between threads while no one uses it.
private struct ContextPointer: @unchecked Sendable {
    let pointer: OpaquePointer
}
