internal import COpenSSL

/// OpenSSL's per-thread error queue. It is cleared before each call whose failure we report, so that a stale entry
/// left by someone else never ends up in our message, and drained after a failure into the Swift error.
enum OpenSSLErrorQueue {
    static func clear() { ERR_clear_error() }

    /// Empties the queue and returns its entries as one line (empty when OpenSSL recorded nothing).
    static func drain() -> String {
        var parts: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            parts.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return parts.joined(separator: "; ")
    }

    /// A `CryptoError` whose message is `context` followed by whatever OpenSSL queued.
    static func error(_ code: CryptoError.Code, _ context: String) -> CryptoError {
        let queued = drain()
        return CryptoError(code, queued.isEmpty ? context : "\(context) (\(queued))")
    }
}
