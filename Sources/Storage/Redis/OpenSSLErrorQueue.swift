import COpenSSL

/// OpenSSL's error queue is per thread: clear it before a call, and drain it into text after a failure.
enum OpenSSLErrorQueue {
    static func clear() { ERR_clear_error() }

    /// Every queued error, oldest first, joined with "; " (empty when the queue is empty).
    static func drain() -> String {
        var parts: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var text = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &text, text.count)
            parts.append(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return parts.joined(separator: "; ")
    }
}
