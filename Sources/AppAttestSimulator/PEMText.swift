internal import COpenSSL

/// Memory BIOs around OpenSSL's PEM readers and writers.
enum PEMText {
    static func written(_ write: (OpaquePointer) -> Int32) -> String {
        let bio = OpenSSLCall.require(BIO_new(BIO_s_mem()), "BIO_new")
        defer { BIO_free(bio) }
        OpenSSLCall.require(write(bio) == 1, "PEM_write_bio")
        var data: UnsafeMutablePointer<CChar>?
        let count = BIO_ctrl(bio, BIO_CTRL_INFO, 0, &data)
        return String(decoding: UnsafeRawBufferPointer(start: data, count: count), as: UTF8.self)
    }

    static func read(_ text: String, _ parse: (OpaquePointer) -> OpaquePointer?) -> OpaquePointer? {
        var text = text
        return text.withUTF8 { bytes -> OpaquePointer? in
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return nil }
            defer { BIO_free(bio) }
            let parsed = parse(bio)
            // A failed parse leaves reasons on this thread's queue; they must not be blamed on a later call.
            if parsed == nil { ERR_clear_error() }
            return parsed
        }
    }
}
