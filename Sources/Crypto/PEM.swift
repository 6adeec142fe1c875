internal import COpenSSL

/// The OpenSSL plumbing shared by the key types: memory BIOs in and out, and the per-thread error queue.
enum PEM {
    /// Runs `body` with a read-only memory BIO over `text`.
    static func withReadBIO<R>(_ text: String, _ body: (OpaquePointer) -> R) -> R? {
        var text = text
        return text.withUTF8 { bytes -> R? in
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return nil }
            defer { BIO_free(bio) }
            return body(bio)
        }
    }

    /// The text that `write` puts into a fresh memory BIO, or nil when it reports failure.
    static func written(_ write: (OpaquePointer) -> Int32) -> String? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { return nil }
        let count = Int(BIO_ctrl_pending(bio))
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = max(0, Int(BIO_read(bio, buffer.baseAddress, Int32(count))))
        }
        return String(decoding: bytes, as: UTF8.self)
    }

}
