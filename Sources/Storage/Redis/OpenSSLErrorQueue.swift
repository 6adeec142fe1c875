import COpenSSL
import CShims

/// OpenSSL's error queue is per thread: clear it before a call, and drain it into text after a failure.
enum OpenSSLErrorQueue {
    static func clear() { ERR_clear_error() }

    /// Every queued error, oldest first, joined with "; " (empty when the queue is empty).
    static func drain() -> String {
        // The loop lives in CShims (cshims_ERR_drain), shared by every module that reports OpenSSL failures.
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 2048) { buffer in
            let count = cshims_ERR_drain(buffer.baseAddress, buffer.count)
            return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress, count: count), as: UTF8.self)
        }
    }
}
