internal import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's DRBG (per-thread, seeded from the kernel).
public enum SecureRandom {
    /// `count` random bytes. Traps only if the DRBG cannot be seeded, which leaves no safe way to continue.
    public static func bytes(count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
            fill(UnsafeMutableRawBufferPointer(out))
            initialized = count
        }
    }

    /// Fills `buffer` with random bytes, for callers that build a value in place.
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        guard buffer.count > 0 else { return }
        let ok = RAND_bytes(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(buffer.count))
        precondition(ok == 1, "OpenSSL's random generator failed")
    }
}
