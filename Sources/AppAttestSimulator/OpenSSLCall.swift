internal import COpenSSL
internal import CShims

/// How the simulator treats OpenSSL failures: as broken invariants. Key generation, certificate building and
/// signing on well-formed inputs fail only when the library itself is broken or memory is exhausted, and a
/// test tool that cannot sign has no useful way to continue; trapping keeps the simulator's API free of `try`.
enum OpenSSLCall {
    /// Traps with `what` and OpenSSL's queued errors unless `ok`.
    static func require(_ ok: Bool, _ what: String) {
        guard !ok else { return }
        let text = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 2048) { buffer in
            let count = cshims_ERR_drain(buffer.baseAddress, buffer.count)
            return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress, count: count), as: UTF8.self)
        }
        preconditionFailure("AppAttestSimulator: \(what) failed: \(text)")
    }

    /// Returns `pointer`, trapping with `what` if OpenSSL returned NULL.
    static func require<T>(_ pointer: T?, _ what: String) -> T {
        require(pointer != nil, what)
        return pointer!
    }

    /// The DER bytes an `i2d_*` function writes, sized by a first call without output.
    static func encode(_ what: String, _ i2d: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32) -> [UInt8] {
        let count = Int(i2d(nil))
        require(count > 0, what)
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var cursor = buffer.baseAddress
            initialized = Int(i2d(&cursor))
        }
    }
}
