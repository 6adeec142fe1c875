internal import COpenSSL
internal import CShimsOpenSSL

/// OpenSSL's per-thread error queue. It is cleared before each call whose failure we report, so that a stale entry
/// left by someone else never ends up in our message, and drained after a failure into the Swift error. Both modules
/// that call OpenSSL (Crypto and TLS) report their failures through this one.
public enum OpenSSLErrorQueue {
    public static func clear() { ERR_clear_error() }

    /// Empties the queue and returns its entries as one line (empty when OpenSSL recorded nothing).
    public static func drain() -> String {
        // The loop lives in CShimsOpenSSL (cshims_ERR_drain); Crypto and TLS both report through this one.
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 2048) { buffer in
            let count = cshims_ERR_drain(buffer.baseAddress, buffer.count)
            return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress, count: count), as: UTF8.self)
        }
    }

    /// A `CryptoError` whose message is `context` followed by whatever OpenSSL queued.
    static func error(_ code: CryptoError.Code, _ context: String) -> CryptoError {
        let queued = drain()
        return CryptoError(code, queued.isEmpty ? context : "\(context) (\(queued))")
    }
}
